import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import { LIMITS } from '../src/admission/limits';
import { newId } from '../src/model';

const SCREEN =
  'id name email createdAt addresses { label street city postalCode country } orders(first: 20) { nodes { id placedAt status totalCents } }';

describe('abuse limits, enforced before execution', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Sends an operation and asserts it was refused as invalid without one DynamoDB request. */
  async function expectRefusedBeforeExecution(query: string, variables?: Record<string, unknown>, code = 'GRAPHQL_VALIDATION_FAILED') {
    const { response, wire } = await stack.measure(query, variables);
    expect(response.status).toBe(400);
    expect(response.data).toBeUndefined();
    expectError(response, code);
    expect(wire).toEqual([]);
    return response.errors![0]!.message;
  }

  it('refuses 300 aliased customer screens', async () => {
    const id = newId();
    const query = `{ ${Array.from({ length: 300 }, (_, i) => `c${i}: customer(id: "${id}") { ${SCREEN} }`).join(' ')} }`;
    expect(await expectRefusedBeforeExecution(query, undefined, 'GRAPHQL_PARSE_FAILED')).toMatch(/tokens/);
    // Short enough to parse, one alias past the limit is refused by the alias rule alone.
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `c${i}: customer(id: "${id}") { id }`).join(' ')} }`;
    expect(await expectRefusedBeforeExecution(aliased(LIMITS.maxAliases + 1))).toMatch(/alias/i);
    expect(dataOf(await stack.gql(aliased(LIMITS.maxAliases))).c0).toBeNull();
  });

  // The estimate checks every list's arguments: a parent (an order, a profile by email, a status page) never reads first.
  it('refuses a nested list’s bad arguments before its parent reads', async () => {
    const id = newId();
    await expectRefusedBeforeExecution(
      `query($id: ID!) { order(id: $id) { customer { orders(first: 0) { nodes { id } } } } }`,
      { id },
      'BAD_USER_INPUT',
    );
    await expectRefusedBeforeExecution(
      `query($e: String!) { customerByEmail(email: $e) { orders(month: "2026-13") { nodes { id } } } }`,
      { e: 'ana@example.com' },
      'BAD_USER_INPUT',
    );
    const page = `{ ordersByStatus(status: PAID, first: 1) { nodes { customer { orders(first: 500) { nodes { id } } } } } }`;
    await expectRefusedBeforeExecution(page, undefined, 'BAD_USER_INPUT');
  });

  it('refuses by estimated cost, multiplying lists by `first`, even under the alias limit', async () => {
    const id = newId();
    const query = `{ ${Array.from({ length: 10 }, (_, i) => `c${i}: customer(id: "${id}") { orders(first: 100) { nodes { id lines { sku } } } }`).join(' ')} }`;
    expect(await expectRefusedBeforeExecution(query)).toMatch(/cost \d+ exceeds the limit of 10000/);
    // `first` given as a variable counts the same: 100 orders, each reading its lines (97) and customer (2).
    const withVariable = `query($n: Int) { a: customer(id: "${id}") { orders(first: $n) { nodes { lines { sku quantity } customer { name } } } } }`;
    expect(await expectRefusedBeforeExecution(withVariable, { n: 100 })).toMatch(/cost/);
    expect(dataOf(await stack.gql(withVariable, { n: 5 }))).toEqual({ a: null });
  });

  it(`refuses a query deeper than ${LIMITS.maxDepth}`, async () => {
    const id = newId();
    const deep = `{ customer(id: "${id}") { orders { nodes { customer { orders { nodes { customer { orders { nodes { id } } } } } } } } } }`;
    expect(await expectRefusedBeforeExecution(deep)).toMatch(/depth/i);
    const ok = `{ ordersByStatus(status: PAID, first: 1) { edges { node { customer { orders(first: 1) { nodes { lines { sku } } } } } } } }`;
    expect(dataOf(await stack.gql(ok)).ordersByStatus.edges).toEqual([]);
  });

  it(`refuses more than ${LIMITS.maxTokens} tokens`, async () => {
    const query = `{ ${Array.from({ length: LIMITS.maxTokens }, () => '__typename').join(' ')} }`;
    expect(await expectRefusedBeforeExecution(query, undefined, 'GRAPHQL_PARSE_FAILED')).toMatch(/token/i);
  });

  it('refuses batched HTTP requests', async () => {
    const res = await fetch(stack.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    });
    expect(res.status).toBe(400);
  });

  it('refuses oversized string input with BAD_USER_INPUT before any request', async () => {
    const { response, wire } = await stack.measure(
      'mutation($name: String!) { createCustomer(input: { name: $name, email: "a@example.com" }) { id } }',
      { name: 'x'.repeat(10_000) },
    );
    expectError(response, 'BAD_USER_INPUT');
    expect(wire).toEqual([]);
  });

  it(`refuses more than ${LIMITS.maxMutationFields} root mutation fields before any write`, async () => {
    const create = (n: number) =>
      `mutation { ${Array.from({ length: n }, (_, i) => `m${i}: createCustomer(input: { name: "M${i}", email: "${newId()}@example.com" }) { id }`).join(' ')} }`;
    expect(await expectRefusedBeforeExecution(create(LIMITS.maxMutationFields + 1))).toMatch(/at most 3 mutation fields, this one holds 4/);
    expect(Object.keys(dataOf(await stack.gql(create(LIMITS.maxMutationFields))))).toHaveLength(LIMITS.maxMutationFields);
  });

  it('answers variables of the wrong type with 400 BAD_USER_INPUT, never a 500', async () => {
    const byStatus = 'query($s: OrderStatus!, $n: Int) { ordersByStatus(status: $s, first: $n) { nodes { id } } }';
    const cases: Array<[Record<string, unknown> | undefined, RegExp]> = [
      [{ s: 'PAID', n: '5' }, /Int cannot represent non-integer value: "5"/],
      [{ s: 'NOPE' }, /Value "NOPE" does not exist in "OrderStatus" enum/],
      [undefined, /Variable "\$s" of required type "OrderStatus!" was not provided/],
      [{ s: null }, /Variable "\$s" of non-null type "OrderStatus!" must not be null/],
    ];
    for (const [variables, message] of cases) {
      expect(await expectRefusedBeforeExecution(byStatus, variables, 'BAD_USER_INPUT')).toMatch(message);
    }
  });

  it('refuses a subscription with 400: the schema has none', async () => {
    expect(await expectRefusedBeforeExecution('subscription { __typename }')).toMatch(/Subscriptions are not supported/);
  });

  it('answers each misuse of a persisted query with a 400 and a code', async () => {
    const query = '{ __typename }';
    const sha = createHash('sha256').update(query).digest('hex');
    const send = (body: Record<string, unknown>) => post(stack.server.url, body);
    const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { query, extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } },
        'PERSISTED_QUERY_HASH_MISMATCH',
        /not the SHA-256 of the query text/,
      ],
      [
        { extensions: { persistedQuery: { version: 1, sha256Hash: 'b'.repeat(64) } } },
        'PERSISTED_QUERY_NOT_FOUND',
        /PersistedQueryNotFound/,
      ],
      [{ extensions: { persistedQuery: { version: 2, sha256Hash: sha } } }, 'BAD_REQUEST', /version": 1/],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 'not-a-hash' } } }, 'BAD_REQUEST', /64 hexadecimal digits/],
    ];
    for (const [body, code, message] of refusals) {
      const response = await send(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectError(response, code);
      expect(response.errors![0]!.message).toMatch(message);
    }
    // Automatic persisted queries still work: the text with its hash registers it, then the hash alone runs it.
    expect(dataOf(await send({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha } } }))).toEqual({ __typename: 'Query' });
    expect(dataOf(await send({ extensions: { persistedQuery: { version: 1, sha256Hash: sha } } }))).toEqual({ __typename: 'Query' });
  });

  it('answers Cache-Control: no-store, to data, refusals and a bad token alike', async () => {
    const ok = await stack.gql(`{ customer(id: "${newId()}") { id } }`);
    const refused = await stack.gql('query($n: Int) { ordersByStatus(status: PAID, first: $n) { nodes { id } } }', { n: 'x' });
    const badToken = await stack.gql('{ __typename }', undefined, { authorization: 'Bearer not.a.token' });
    expect([ok.status, refused.status, badToken.status]).toEqual([200, 400, 401]);
    for (const response of [ok, refused, badToken]) expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a 20 MB body with 413 without reading it whole', async () => {
    const url = new URL(stack.server.url);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
          req.destroy();
        },
      );
      req.on('error', (error) => {
        if (written < 20 * chunk.length) return;
        reject(error);
      });
      const pump = () => {
        while (written < 20 * chunk.length && !req.destroyed) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    expect(written).toBeLessThan(20 * chunk.length);
  });

  it('refuses a declared Content-Length over the limit at once', async () => {
    const res = await fetch(stack.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ' '.repeat(LIMITS.maxBodyBytes + 1),
    });
    expect(res.status).toBe(413);
  });
});

describe('production mode', () => {
  let production: Stack;
  let lines: Array<Record<string, any>>;
  beforeAll(async () => {
    lines = [];
    production = await startStack({ production: true, log: (line) => lines.push(line) });
  });
  afterAll(async () => {
    await production?.close();
  });

  it('serves no introspection and no landing page', async () => {
    const response = await production.gql('{ __schema { types { name } } }');
    expect(response.status).toBe(400);
    expectError(response, 'GRAPHQL_VALIDATION_FAILED');
    const page = await fetch(production.server.url, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/<html|sandbox/i);
  });

  it('hides field suggestions', async () => {
    const response = await production.gql('{ customr(id: "x") { id } }');
    expectError(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.errors![0]!.message).not.toMatch(/did you mean/i);
    expect(response.errors![0]!.message).not.toMatch(/customer/);
  });

  it('refuses a costly operation without printing its cost or the limit', async () => {
    const id = newId();
    const query = `{ ${Array.from({ length: 10 }, (_, i) => `c${i}: customer(id: "${id}") { orders(first: 100) { nodes { id lines { sku } } } }`).join(' ')} }`;
    const response = await production.gql(query);
    expect(response.status).toBe(400);
    expectError(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.errors![0]!.message).toMatch(/too costly/);
    expect(response.errors![0]!.message).not.toMatch(/\d/);
    expect(response.errors![0]!.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('omits the explain extension unless enabled', async () => {
    const response = await production.gql(`{ customer(id: "${newId()}") { id } }`, undefined, { 'x-explain': '1' });
    expect(response.extensions?.dynamodb).toBeUndefined();
  });

  it('logs each operation as JSON with request id, operation name, DynamoDB requests and duration', async () => {
    const response = await production.gql(`query CustomerName { customer(id: "${newId()}") { name } }`, undefined, {
      'x-request-id': 'req-42',
    });
    expect(response.headers.get('x-request-id')).toBe('req-42');
    const line = lines.find((l) => l.msg === 'operation' && l.requestId === 'req-42');
    expect(line).toMatchObject({ level: 30, operationName: 'CustomerName', dynamodb: { requests: 1, waves: 1 }, errors: 0 });
    expect(typeof line!.durationMs).toBe('number');
  });
});

describe('production mode with introspection and explain enabled', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ production: true, introspectionInProduction: true, explainInProduction: true });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('serves introspection and the plan when asked', async () => {
    expect(dataOf(await stack.gql('{ __schema { queryType { name } } }'))).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const response = await stack.gql(`{ customer(id: "${newId()}") { id } }`, undefined, { 'x-explain': '1' });
    expect(response.extensions?.dynamodb).toMatchObject({ waves: 1, totals: { requests: 1 } });
    expect((await stack.gql(`{ customer(id: "${newId()}") { id } }`)).extensions?.dynamodb).toBeUndefined();
  });

  it('gives the plan to staff only: a customer asking for it gets none', async () => {
    const customerId = newId();
    const asCustomer = await stack.gql(`{ customer(id: "${customerId}") { id } }`, undefined, {
      ...bearer(await tokens.customer(customerId)),
      'x-explain': '1',
    });
    expect(dataOf(asCustomer)).toEqual({ customer: null });
    expect(asCustomer.extensions?.dynamodb).toBeUndefined();
    expect(asCustomer.extensions?.cost).toBeUndefined();
    const asStaff = await stack.gql(`{ customer(id: "${customerId}") { id } }`, undefined, { 'x-explain': '1' });
    expect(asStaff.extensions?.dynamodb).toMatchObject({ totals: { requests: 1 } });
  });
});

/** POSTs a raw GraphQL-over-HTTP body as staff (persisted queries need more than `query`). */
async function post(url: string, body: Record<string, unknown>): Promise<GraphQLResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(await tokens.staff()) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, ...((await res.json()) as object) };
}
