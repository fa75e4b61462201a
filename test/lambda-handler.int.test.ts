/**
 * The Lambda handler (src/entry/lambda.ts), invoked the way the Lambda runtime invokes it: with API
 * Gateway HTTP API (payload 2.0) events from test/fixtures/lambda, against the embedded engine,
 * with `AUTH_*` pointing at a JWKS the test serves (shared setup: test/support/lambda.ts).
 *
 * The engine is reached through a TCP proxy that counts connections, so "the DynamoDB client is
 * made once per container and reused" is observed from outside, on the wire: a client made per
 * invocation would open a new connection each time.
 *
 * The deployable bundle built by the Makefile is test/lambda-bundle.int.test.ts's.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context as LambdaContext } from 'aws-lambda';
import { cognitoClaims, signingKey } from './support/jwks';
import { ISO, parse, startLambdaTestbed, ULID, type LambdaTestbed } from './support/lambda';

type Handler = (event: APIGatewayProxyEventV2, context: LambdaContext) => Promise<APIGatewayProxyStructuredResultV2>;

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

let invocations = 0;
function lambdaContext(): LambdaContext {
  invocations++;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'single-table-graphql-GraphQLFunction-Q1w2E3r4T5y6',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:single-table-graphql-GraphQLFunction-Q1w2E3r4T5y6',
    memoryLimitInMB: '1024',
    awsRequestId: `5f3c1a2b-0000-4000-8000-${String(invocations).padStart(12, '0')}`,
    logGroupName: '/aws/lambda/single-table-graphql-GraphQLFunction-Q1w2E3r4T5y6',
    logStreamName: '2026/09/10/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => 25_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A TCP proxy in front of the engine that counts the connections opened through it. */
async function countingProxy(target: number) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    connections++;
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => connections,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let bed: LambdaTestbed;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  bed = await startLambdaTestbed('lambda-app');
  proxy = await countingProxy(bed.engine.port);
  // What template.yaml gives the function, plus the endpoint (Amazon DynamoDB when absent).
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  process.env.TABLE_NAME = 'lambda-app';
  process.env.NODE_ENV = 'production';
  process.env.AWS_REGION = 'eu-west-1';
  Object.assign(process.env, bed.idp.env());
  delete process.env.EXPLAIN_ENABLED;
});

afterAll(async () => {
  process.env = savedEnv;
  await proxy?.close();
  await bed?.close();
});

describe('the Lambda handler (API Gateway HTTP API, payload 2.0)', () => {
  let handler: Handler;
  let created: { id: string; name: string; email: string; createdAt: string };

  beforeAll(async () => {
    // Imported only now, after the environment is set, as the Lambda runtime loads it: a fresh module
    // (a worker may have loaded it for another suite), so a fresh container.
    vi.resetModules();
    const module = await import('../src/entry/lambda');
    handler = module.handler;
  });

  it('exports the handler and nothing else', async () => {
    expect(Object.keys(await import('../src/entry/lambda'))).toEqual(['handler']);
  });

  it('creates a customer with a POSTed mutation, in one TransactWriteItems', async () => {
    const event = bed.fixture('create-customer.post');
    bed.engine.wire.reset();
    const { statusCode, headers, body } = parse(await handler(event, lambdaContext()));
    expect(statusCode).toBe(200);
    expect(headers['content-type']).toBe(GRAPHQL_RESPONSE_TYPE); // the client's Accept prefers it
    expect(headers['x-request-id']).toBe(event.requestContext.requestId);
    expect(body).toEqual({
      data: {
        createCustomer: {
          id: expect.stringMatching(ULID),
          name: 'Lambda Lucía',
          email: 'Lucia.Lambda@example.com',
          createdAt: expect.stringMatching(ISO),
        },
      },
      // It wrote: the read-your-writes token (docs/consistency.md), as an extension and a header.
      extensions: { readAfter: { token: headers['x-read-after'], until: expect.stringMatching(ISO) } },
    });
    expect(headers['x-read-after']).toMatch(/^rw1\./);
    expect(bed.engine.wire.requests().map((r) => r.operation)).toEqual(['TransactWriteItems']);
    created = (body as { data: { createCustomer: typeof created } }).data.createCustomer;
  });

  it('reads it back with a POSTed query (customer by email, its screen)', async () => {
    const { statusCode, headers, body } = parse(await handler(bed.fixture('customer-by-email.post'), lambdaContext()));
    expect(statusCode).toBe(200);
    expect(headers['content-type']).toBe(GRAPHQL_RESPONSE_TYPE);
    expect(body).toEqual({
      data: { customerByEmail: { ...created, addresses: [], orders: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } },
    });
  });

  it('answers a GET query (with a CSRF preflight header) and the content length it sends', async () => {
    const event = bed.fixture('customer-by-email.get');
    const result = await handler(event, lambdaContext());
    const { statusCode, headers, body } = parse(result);
    expect(statusCode).toBe(200);
    expect(headers['content-type']).toBe(JSON_TYPE);
    expect(headers['content-length']).toBe(String(Buffer.byteLength(result.body ?? '')));
    expect(headers['x-request-id']).toBe(event.requestContext.requestId);
    expect(body).toEqual({ data: { customerByEmail: { name: created.name, email: created.email } } });
  });

  it('blocks a GET without a preflight header (CSRF prevention) and a mutation sent by GET', async () => {
    const simple = bed.fixture('customer-by-email.get');
    delete simple.headers['apollo-require-preflight'];
    const blocked = parse(await handler(simple, lambdaContext()));
    expect(blocked.statusCode).toBe(400);
    expect(blocked.headers['content-type']).toBe(JSON_TYPE);
    expect(blocked.body).toEqual({
      errors: [{ message: expect.stringContaining('Cross-Site Request Forgery'), extensions: { code: 'BAD_REQUEST' } }],
    });

    const mutation = bed.fixture('customer-by-email.get');
    mutation.rawQueryString = `query=${encodeURIComponent('mutation { removeAddress(customerId: "01J00000000000000000000000", label: "home") }')}`;
    bed.engine.wire.reset();
    const refused = parse(await handler(mutation, lambdaContext()));
    expect(refused.statusCode).toBe(405);
    expect(refused.headers['content-type']).toBe(JSON_TYPE);
    expect(refused.body).toEqual({
      errors: [{ message: 'GET requests only support query operations, not mutation operations', extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(bed.engine.wire.count()).toBe(0);
  });

  it('answers a malformed JSON body with a JSON 400, as the HTTP server does, reading nothing', async () => {
    const event = bed.fixture('malformed-body.post');
    bed.engine.wire.reset();
    const { statusCode, headers, body } = parse(await handler(event, lambdaContext()));
    expect(statusCode).toBe(400);
    expect(headers['content-type']).toBe(JSON_TYPE);
    expect(headers['x-request-id']).toBe(event.requestContext.requestId);
    expect(body).toEqual({
      errors: [{ message: 'POST body missing, invalid Content-Type, or JSON object has no keys.', extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(bed.engine.wire.count()).toBe(0);
  });

  it('decodes a base64-encoded body', async () => {
    const event = bed.fixture('customer-by-email.post');
    event.body = Buffer.from(event.body ?? '', 'utf8').toString('base64');
    event.isBase64Encoded = true;
    const { statusCode, body } = parse(await handler(event, lambdaContext()));
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      data: { customerByEmail: { ...created, addresses: [], orders: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } },
    });
  });

  it('refuses bad input with BAD_USER_INPUT before any DynamoDB request', async () => {
    bed.engine.wire.reset();
    const { statusCode, headers, body } = parse(await handler(bed.fixture('bad-input.post'), lambdaContext()));
    expect(statusCode).toBe(200);
    expect(headers['content-type']).toBe(GRAPHQL_RESPONSE_TYPE);
    expect(body).toEqual({
      errors: [
        {
          message: 'input.email must be an email address such as ana@example.com',
          locations: [{ line: 1, column: 57 }],
          path: ['createCustomer'],
          extensions: { code: 'BAD_USER_INPUT', field: 'input.email' },
        },
      ],
      data: null,
    });
    expect(bed.engine.wire.count()).toBe(0);
  });

  it('refuses a data query without a token: 401 UNAUTHENTICATED, before any DynamoDB request', async () => {
    bed.engine.wire.reset();
    const { statusCode, headers, body } = parse(await handler(bed.fixture('customer-by-email.post', null), lambdaContext()));
    expect(statusCode).toBe(401);
    expect(headers['www-authenticate']).toBe('Bearer');
    expect((body as any).errors.map((error: any) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
    expect((body as any).data ?? null).toBeNull();
    expect(bed.engine.wire.count()).toBe(0);
  });

  it('refuses a bad token (expired, another key, tampered) with 401 and a WWW-Authenticate challenge', async () => {
    const stranger = await signingKey('RS256', bed.key.kid);
    const [header, payload, signature] = bed.staffToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    const bad = [
      await bed.idp.sign(bed.key, cognitoClaims({ staff: true }), { expiresIn: -120 }),
      await bed.idp.sign(stranger, cognitoClaims({ staff: true })),
      tampered,
    ];
    for (const token of bad) {
      bed.engine.wire.reset();
      const event = bed.fixture('customer-by-email.post', token);
      const { statusCode, headers, body } = parse(await handler(event, lambdaContext()));
      expect(statusCode).toBe(401);
      expect(headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(headers['x-request-id']).toBe(event.requestContext.requestId);
      expect((body as any).errors.map((error: any) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
      expect(bed.engine.wire.count()).toBe(0);
    }
  });

  it('ignores x-explain in production unless EXPLAIN_ENABLED', async () => {
    const event = bed.fixture('customer-by-email.get');
    event.headers['x-explain'] = '1';
    const { body } = parse(await handler(event, lambdaContext()));
    expect(body).toEqual({ data: { customerByEmail: { name: created.name, email: created.email } } });
  });

  it('reused one DynamoDB client, and one keep-alive connection, across every invocation so far', () => {
    expect(invocations).toBeGreaterThanOrEqual(9);
    expect(proxy.connections()).toBe(1);
  });

  it('makes a new client in a new container (a fresh module), which honours x-explain when EXPLAIN_ENABLED=1', async () => {
    vi.resetModules();
    process.env.EXPLAIN_ENABLED = '1';
    try {
      const fresh = (await import('../src/entry/lambda')).handler;
      expect(fresh).not.toBe(handler);
      const event = bed.fixture('customer-by-email.get');
      event.headers['x-explain'] = '1';
      const { statusCode, body } = parse(await fresh(event, lambdaContext()));
      expect(statusCode).toBe(200);
      expect(body).toMatchObject({
        data: { customerByEmail: { name: created.name, email: created.email } },
        extensions: { dynamodb: { waves: 1, totals: { requests: 1 } } },
      });
      expect((body as any).extensions.dynamodb.requests).toEqual([expect.objectContaining({ operation: 'Query', index: 'GSI1' })]);
      await fresh(bed.fixture('customer-by-email.get'), lambdaContext());
      expect(proxy.connections()).toBe(2);
    } finally {
      delete process.env.EXPLAIN_ENABLED;
    }
  });

  it('serves introspection in production only with INTROSPECTION_ENABLED=1, as the HTTP server does', async () => {
    const introspect = () => {
      const event = bed.fixture('customer-by-email.post');
      event.body = JSON.stringify({ query: '{ __schema { queryType { name } } }' });
      delete event.headers['content-length'];
      return event;
    };
    const refused = parse(await handler(introspect(), lambdaContext()));
    expect((refused.body as any).errors?.[0]?.message).toMatch(/introspection/i);
    vi.resetModules();
    process.env.INTROSPECTION_ENABLED = '1';
    try {
      const fresh = (await import('../src/entry/lambda')).handler;
      const { statusCode, body } = parse(await fresh(introspect(), lambdaContext()));
      expect(statusCode).toBe(200);
      expect(body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    } finally {
      delete process.env.INTROSPECTION_ENABLED;
    }
  });

  it("reads strongly in another container with the token a write's response carried, eventually without it", async () => {
    const operation = (query: string, variables: Record<string, unknown>, extra: Record<string, string> = {}) => {
      const event = bed.fixture('customer-by-email.post');
      event.body = JSON.stringify({ query, variables });
      delete event.headers['content-length'];
      Object.assign(event.headers, extra);
      return event;
    };
    const renamed = parse(
      await handler(
        operation('mutation($id: ID!) { updateCustomer(id: $id, input: { name: "Lucía Dos" }) { name } }', { id: created.id }),
        lambdaContext(),
      ),
    );
    expect(renamed.body).toMatchObject({ data: { updateCustomer: { name: 'Lucía Dos' } } });
    const token = renamed.headers['x-read-after'] as string;
    vi.resetModules();
    const other = (await import('../src/entry/lambda')).handler; // another container: it took no write
    const read = async (extra: Record<string, string>) => {
      bed.engine.wire.reset();
      const { body } = parse(
        await other(operation('query($id: ID!) { customer(id: $id) { name } }', { id: created.id }, extra), lambdaContext()),
      );
      return { body, consistent: bed.engine.wire.requests().map((r) => r.body.ConsistentRead === true) };
    };
    expect(await read({ 'x-read-after': token })).toEqual({ body: { data: { customer: { name: 'Lucía Dos' } } }, consistent: [true] });
    expect((await read({})).consistent).toEqual([false]);
  });
});
