/**
 * Contention and outages are UNAVAILABLE, never INTERNAL_SERVER_ERROR: HTTP 503 with
 * `Retry-After`, `extensions.retryable: true`, `retryAfterSeconds` and `reason`, a generic stable
 * message in production (no DynamoDB or network text), logged at warn. One formatter serves every
 * transport (src/http/plugins.ts): HTTP, Lambda and WebSocket are each covered here. Faults are the
 * engine's own (injected responses: packages/engine/src/embedded.ts, and its forced conflicts). The same
 * file checks the production hygiene around errors: no "Did you mean" and a checked x-request-id.
 */
import pino from 'pino';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2, Context as LambdaContext } from 'aws-lambda';
import { errorResponse, startEngine, type EmbeddedEngine } from '@single-table/engine';
import { createDocumentClient } from '../src/dynamo/client';
import { ensureTable } from '../src/dynamo/definition';
import { Table } from '../src/dynamo/table';
import { startServer, type RunningServer } from '../src/http/server';
import { newId, UNAVAILABLE_MESSAGES } from '../src/model';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, testAuthenticator, tokens } from './support/auth';
import { parse, startLambdaTestbed, type LambdaTestbed } from './support/lambda';

const CUSTOMER = 'query($id: ID!) { customer(id: $id) { name } }';
const CREATE = 'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }';
const LEAKS = /leveldb|127\.0\.0\.1|Exception|InternalServerError|Transaction cancelled|TransactionConflict|stacktrace|dynamo/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The UNAVAILABLE a response must carry, whatever the transport. */
function unavailableError(reason: string, retryAfterSeconds: number, message: string = UNAVAILABLE_MESSAGES[reason as 'throttled']) {
  return { message, extensions: { code: 'UNAVAILABLE', retryable: true, retryAfterSeconds, reason, requestId: expect.any(String) } };
}

function expectUnavailable(response: GraphQLResponse, reason: string, retryAfterSeconds: number, message?: string) {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe(String(retryAfterSeconds));
  expect(response.errors).toMatchObject([unavailableError(reason, retryAfterSeconds, message)]);
  expect(response.errors![0]!.extensions!.requestId).toBe(response.headers.get('x-request-id'));
  expect(JSON.stringify(response)).not.toMatch(LEAKS);
}

describe('HTTP and WebSocket in production', () => {
  let engine: EmbeddedEngine;
  let server: RunningServer;
  let staff: Record<string, string>;
  const lines: Array<Record<string, any>> = [];

  beforeAll(async () => {
    engine = await startEngine({ host: '127.0.0.1', port: 0 });
    // One SDK retry (the default 5 attempts of throttling back off for seconds): what reaches the product is the same.
    const client = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1', maxAttempts: 2 });
    await ensureTable(client, 'app');
    server = await startServer({
      table: new Table('app', client),
      authenticate: await testAuthenticator(),
      production: true,
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      port: 0,
      host: '127.0.0.1',
    });
    staff = bearer(await tokens.staff());
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
  });

  async function gql(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...staff, ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, headers: res.headers, ...((await res.json()) as object) } as GraphQLResponse;
  }
  const logged = (requestId: string | null) => lines.filter((line) => line.requestId === requestId && line.level >= 40);

  it('throttling, after the SDK retried it, is 503 UNAVAILABLE throttled, masked, logged at warn', async () => {
    const stop = engine.faults.inject('*', () => errorResponse('ThrottlingException', 'throttled at leveldb 127.0.0.1'));
    try {
      engine.wire.reset();
      const read = await gql(CUSTOMER, { id: newId() });
      expectUnavailable(read, 'throttled', 1);
      expect(engine.wire.count()).toBe(2); // the SDK's own retry first
      expect(logged(read.headers.get('x-request-id'))).toMatchObject([{ level: 40, msg: 'operation unavailable', reason: 'throttled' }]);
      const write = await gql(CREATE, { input: { name: 'Busy', email: `${newId()}@example.com` } });
      expectUnavailable(write, 'throttled', 1);
    } finally {
      stop();
    }
  });

  it('DynamoDB failing with a 5xx is 503 UNAVAILABLE unreachable', async () => {
    const stop = engine.faults.inject('*', () => errorResponse('InternalServerError', 'leveldb exploded at 127.0.0.1:1234'));
    try {
      const response = await gql(CUSTOMER, { id: newId() });
      expectUnavailable(response, 'unreachable', 2);
      expect(logged(response.headers.get('x-request-id'))).toMatchObject([{ level: 40, reason: 'unreachable' }]);
    } finally {
      stop();
    }
  });

  it('over WebSocket, the same UNAVAILABLE (no HTTP status there), logged at warn', async () => {
    const stop = engine.faults.inject('*', () => errorResponse('ThrottlingException'));
    const client = createClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: staff,
    });
    try {
      const errors = await new Promise<unknown[]>((resolve) => {
        const got: unknown[] = [];
        client.subscribe(
          { query: 'subscription($id: ID!) { orderUpdated(id: $id) { eventId } }', variables: { id: newId() } },
          {
            next: (result) => got.push(...(result.errors ?? [])),
            error: (error) => resolve([...got, ...(Array.isArray(error) ? error : [error])]),
            complete: () => resolve(got),
          },
        );
      });
      expect(errors).toMatchObject([unavailableError('throttled', 1)]);
      expect(JSON.stringify(errors)).not.toMatch(LEAKS);
      const requestId = (errors[0] as { extensions: { requestId: string } }).extensions.requestId;
      expect(logged(requestId)).toMatchObject([{ level: 40, msg: 'subscription unavailable', reason: 'throttled' }]);
    } finally {
      stop();
      await client.dispose();
    }
  });

  it('shows no "Did you mean" in production: variable coercion and validation, HTTP and WebSocket', async () => {
    const byStatus = 'query($s: OrderStatus!) { ordersByStatus(status: $s, first: 1) { nodes { id } } }';
    const enumValue = await gql(byStatus, { s: 'PAIDD' });
    expect(enumValue.status).toBe(400);
    expect(enumValue.errors?.map((e) => e.message)).toEqual([
      'Variable "$s" got invalid value "PAIDD"; Value "PAIDD" does not exist in "OrderStatus" enum.',
    ]);
    const field = await gql(CREATE, { input: { nam: 'Typo', email: 'typo@example.com' } });
    const validation = await gql('{ custmer(id: "x") { name } }');
    for (const response of [enumValue, field, validation]) {
      expect(response.errors?.length).toBeGreaterThan(0);
      expect(JSON.stringify(response.errors)).not.toMatch(/did you mean/i);
    }

    const client = createClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: staff,
    });
    try {
      const refused = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: 'subscription($s: OrderStatus!) { ordersByStatusEvents(status: $s) { eventId } }', variables: { s: 'PAIDD' } },
          { next: () => undefined, error: resolve, complete: () => resolve(undefined) },
        );
      });
      expect(refused).toMatchObject([{ message: expect.stringContaining('does not exist in "OrderStatus" enum') }]);
      expect(JSON.stringify(refused)).not.toMatch(/did you mean/i);
    } finally {
      await client.dispose();
    }
  });

  it('keeps a client x-request-id only when it is a short safe token; otherwise a generated one, in the logs too', async () => {
    const kept = await gql('{ __typename }', {}, { 'x-request-id': 'edge-7f3a.b:9_c-1' });
    expect(kept.headers.get('x-request-id')).toBe('edge-7f3a.b:9_c-1');
    for (const unsafe of ['a b', 'x'.repeat(65), 'evil"}{"level":60', 'ré-sumé', 'id\tforged']) {
      const response = await gql(CUSTOMER, { id: 'not-an-id' }, { 'x-request-id': unsafe });
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(UUID);
      expect(lines.some((line) => line.requestId === requestId && line.msg === 'operation')).toBe(true);
      expect(lines.some((line) => line.requestId === unsafe)).toBe(false);
    }
  });
});

describe('exhausted conflict retries (the engine forcing a TransactionConflict on every transaction)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ production: true, engine: { conflictChance: 1 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  // The budget itself (time-bounded, full jitter, at least CONFLICT_MIN_ATTEMPTS) is checked on a
  // virtual clock in test/model/contention.test.ts; here, what a client sees of it on the wire.
  it('are 503 UNAVAILABLE contention after the retries, never the engine text', async () => {
    stack.engine.wire.reset();
    const response = await stack.gql(CREATE, { input: { name: 'Contended', email: `${newId()}@example.com` } });
    expectUnavailable(response, 'contention', 1, 'the write kept conflicting with concurrent writes of the same items; try again');
    expect(stack.engine.wire.count('TransactWriteItems')).toBeGreaterThanOrEqual(3);
  });
});

describe('Lambda (the same Apollo plugins, through the handler)', () => {
  let bed: LambdaTestbed;
  let handler: (event: APIGatewayProxyEventV2, context: LambdaContext) => Promise<any>;
  const savedEnv = { ...process.env };
  const context = { awsRequestId: 'lambda-request-1', getRemainingTimeInMillis: () => 25_000 } as LambdaContext;
  beforeAll(async () => {
    bed = await startLambdaTestbed('lambda-unavailable');
    Object.assign(process.env, bed.idp.env(), {
      DYNAMODB_ENDPOINT: bed.engine.endpoint,
      TABLE_NAME: 'lambda-unavailable',
      NODE_ENV: 'production',
      AWS_REGION: 'eu-west-1',
    });
    vi.resetModules();
    handler = (await import('../src/entry/lambda')).handler;
  });
  afterAll(async () => {
    process.env = savedEnv;
    await bed?.close();
  });

  it('DynamoDB failing is 503 UNAVAILABLE with Retry-After, masked; a client x-request-id is not taken', async () => {
    const stop = bed.engine.faults.inject('*', () => errorResponse('InternalServerError', 'leveldb exploded at 127.0.0.1:1234'));
    try {
      const event = bed.fixture('customer-by-email.post');
      event.headers['x-request-id'] = 'forged\nlevel=fatal';
      const { statusCode, headers, body } = parse(await handler(event, context));
      expect(statusCode).toBe(503);
      expect(headers['retry-after']).toBe('2');
      expect(headers['x-request-id']).toBe(event.requestContext.requestId);
      expect((body as any).errors).toMatchObject([unavailableError('unreachable', 2)]);
      expect((body as any).errors[0].extensions.requestId).toBe(event.requestContext.requestId);
      expect(JSON.stringify(body)).not.toMatch(LEAKS);
    } finally {
      stop();
    }
  });

  it('the identity provider down is 503 UNAVAILABLE identity-provider, not a 500 "Context creation failed"', async () => {
    bed.idp.fail('reset');
    vi.resetModules(); // a new container: no key set fetched yet
    const fresh = (await import('../src/entry/lambda')).handler;
    const { statusCode, headers, body } = parse(await fresh(bed.fixture('customer-by-email.post'), context));
    expect(statusCode).toBe(503);
    expect(Number(headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((body as any).errors).toMatchObject([unavailableError('identity-provider', Number(headers['retry-after']))]);
    expect(JSON.stringify(body)).not.toMatch(/fetch failed|ECONN|Context creation failed|127\.0\.0\.1/);
    bed.idp.fail(undefined);
  });
});
