import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorResponse, startEngine, type EmbeddedEngine } from '@single-table/engine';
import { createDocumentClient } from '../src/dynamo/client';
import { ensureTable } from '../src/dynamo/definition';
import { Table } from '../src/dynamo/table';
import { startServer, type RunningServer } from '../src/http/server';
import { newId, putProduct, DEFAULT_WRITE_SHARDS, SYSTEM_ACTOR } from '../src/model';
import { startStack, operations, type Stack } from './support/stack';
import { dataOf, expectError } from './support/graphql';
import { gqlAt, startServerProcess, type ServerProcess } from './support/processes';
import { testAuthenticator } from './support/auth';

const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name } }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents lines { lineNo } } }`;
const MOVE = `mutation($id: ID!, $status: OrderStatus!) { updateOrderStatus(id: $id, status: $status) { status } }`;
const SCREEN = `query($id: ID!) { customer(id: $id) { name addresses { label city } orders(first: 10) { nodes { id totalCents } pageInfo { hasNextPage } } } }`;
const address = (label: string) => ({ label, street: 'Calle 1', city: 'Madrid', postalCode: '28001', country: 'ES' });
const lines = [
  { sku: 'A-1', quantity: 2 },
  { sku: 'B-2', quantity: 1 },
];
/** The catalog the orders are priced from: 2 × 500 + 1 × 250 = 1250. */
async function stockCatalog(table: Table) {
  for (const [sku, priceCents] of [
    ['A-1', 500],
    ['B-2', 250],
  ] as const)
    await putProduct(table, { sku, name: sku, priceCents, active: true }, SYSTEM_ACTOR);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DynamoDB faults the server survives', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    await stockCatalog(stack.table);
  });
  afterAll(async () => {
    await stack?.close();
  });
  afterEach(() => stack.engine.faults.clear());

  async function customerWithOrders(orders: number, status?: string) {
    const customer = dataOf(await stack.gql(CREATE, { input: { name: `C ${newId()}`, email: `${newId()}@example.com` } })).createCustomer;
    for (const label of ['home', 'work']) {
      dataOf(
        await stack.gql('mutation($c: ID!, $a: AddressInput!) { putAddress(customerId: $c, input: $a) { label } }', {
          c: customer.id,
          a: address(label),
        }),
      );
    }
    for (let i = 0; i < orders; i++) {
      const order = dataOf(await stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: newId(), lines } })).placeOrder;
      if (status) dataOf(await stack.gql(MOVE, { id: order.id, status }));
    }
    return customer as { id: string; name: string };
  }

  it('retries throttled requests with backoff (ThrottlingException, ProvisionedThroughputExceededException)', async () => {
    const customer = await customerWithOrders(3);
    const expected = dataOf(await stack.gql(SCREEN, { id: customer.id }));
    let throttled = 0;
    stack.engine.faults.inject('Query', () => (throttled++ < 2 ? errorResponse('ThrottlingException') : undefined));
    const { response, wire } = await stack.measure(SCREEN, { id: customer.id });
    expect(dataOf(response)).toEqual(expected);
    expect(operations(wire)).toEqual(['Query', 'Query', 'Query']);
    expect(wire.map((r) => r.errorType ?? 'ok')).toEqual(['ThrottlingException', 'ThrottlingException', 'ok']);

    let exceeded = 0;
    stack.engine.faults.inject('TransactWriteItems', () =>
      exceeded++ < 1 ? errorResponse('ProvisionedThroughputExceededException') : undefined,
    );
    const created = await stack.measure(CREATE, { input: { name: 'Throttled', email: `${newId()}@example.com` } });
    expect(dataOf(created.response).createCustomer.name).toBe('Throttled');
    expect(created.wire.map((r) => r.errorType ?? 'ok')).toEqual(['ProvisionedThroughputExceededException', 'ok']);
  });

  it('sends a transaction again when Amazon cancels it for a conflict with another one', async () => {
    const customer = await customerWithOrders(0);
    let conflicts = 0;
    stack.engine.faults.inject('TransactWriteItems', (request) => {
      if (conflicts++ > 0) return undefined;
      const reasons = request.body.TransactItems.map((_: unknown, i: number) =>
        i === 1 ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
      );
      return errorResponse(
        'TransactionCanceledException',
        `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r: { Code: string }) => r.Code).join(', ')}]`,
        { CancellationReasons: reasons },
      );
    });
    const { response, wire } = await stack.measure(PLACE, { input: { customerId: customer.id, idempotencyKey: newId(), lines } });
    expect(dataOf(response).placeOrder).toMatchObject({ totalCents: 1250, lines: [{ lineNo: 1 }, { lineNo: 2 }] });
    expect(wire.map((r) => `${r.operation}:${r.errorType ?? 'ok'}`)).toEqual([
      'BatchGetItem:ok',
      'TransactWriteItems:TransactionCanceledException',
      'TransactWriteItems:ok',
    ]);
    expect(wire[2]!.body.TransactItems).toEqual(wire[1]!.body.TransactItems);
  });

  it('finishes a BatchGetItem answered partly, retrying its UnprocessedKeys', async () => {
    const payers = [await customerWithOrders(2, 'PAID'), await customerWithOrders(2, 'PAID'), await customerWithOrders(2, 'PAID')];
    await stack.settled(); // ordersByStatus reads GSI1, eventually consistent: wait for the moves to show
    const query = '{ ordersByStatus(status: PAID, first: 6) { nodes { customer { id name } } } }';
    const expected = dataOf(await stack.gql(query));
    expect(new Set(expected.ordersByStatus.nodes.map((n: any) => n.customer.id))).toEqual(new Set(payers.map((p) => p.id)));
    let cut = 0;
    stack.engine.faults.inject('BatchGetItem', async (request) => {
      if (cut++ > 0) return undefined;
      const [table, ask] = Object.entries(request.body.RequestItems as Record<string, { Keys: unknown[] }>)[0]!;
      const answered = await request.forward({ ...request.body, RequestItems: { [table]: { ...ask, Keys: ask.Keys.slice(0, 1) } } });
      return { ...answered, body: { ...(answered.body as object), UnprocessedKeys: { [table]: { ...ask, Keys: ask.Keys.slice(1) } } } };
    });
    const { response, wire } = await stack.measure(query);
    expect(dataOf(response)).toEqual(expected);
    // The shard Queries (one per shard, and a top-up of a shard that may hold more of the page:
    // src/model/shard-merge.ts), then the names' BatchGetItem and its retry of the unprocessed keys.
    const queries = operations(wire).slice(0, -2);
    expect(queries.length).toBeGreaterThanOrEqual(DEFAULT_WRITE_SHARDS);
    expect(new Set(queries)).toEqual(new Set(['Query']));
    expect(operations(wire).slice(-2)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(wire.at(-1)!.body.RequestItems.app.Keys).toHaveLength(2);
  });

  it('follows LastEvaluatedKey when a Query page stops short (as at 1 MB)', async () => {
    const customer = await customerWithOrders(12);
    const expected = dataOf(await stack.gql(SCREEN, { id: customer.id }));
    stack.engine.faults.inject('Query', (request) =>
      request.forward({ ...request.body, Limit: Math.min(request.body.Limit ?? Infinity, 4) }),
    );
    const { response, wire } = await stack.measure(SCREEN, { id: customer.id });
    expect(dataOf(response)).toEqual(expected);
    // 1 + 10 + 1 + 1 items at most, 4 a page.
    expect(operations(wire)).toEqual(['Query', 'Query', 'Query', 'Query']);
    const order = expected.customer.orders.nodes[0].id;
    const detail = dataOf(await stack.gql(`query($id: ID!) { order(id: $id) { lines { lineNo } } }`, { id: order }));
    expect(detail.order.lines).toEqual([{ lineNo: 1 }, { lineNo: 2 }]);
  });
});

describe('an engine that goes away and comes back', () => {
  let dir: string;
  let engine: EmbeddedEngine;
  let server: RunningServer;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-'));
    engine = await startEngine({ path: dir });
    port = engine.port;
    const client = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
    await ensureTable(client, 'app');
    await stockCatalog(new Table('app', client));
    server = await startServer({
      table: new Table('app', client),
      authenticate: await testAuthenticator(),
      production: true,
      logger: pino({ level: 'silent' }),
      port: 0,
      host: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const health = async (path: string) => (await fetch(new URL(path, server.url))).status;

  it('answers masked errors while it is down, tells /health from /ready, and recovers by itself', async () => {
    const created = dataOf(await gqlAt(server.url, CREATE, { input: { name: 'Durable', email: `${newId()}@example.com` } })).createCustomer;
    expect(await health('/ready')).toBe(200);

    await engine.close();
    const down = await gqlAt(server.url, `query($id: ID!) { customer(id: $id) { name } }`, { id: created.id });
    // Refused connections, after the SDK's retries: retryable, not a bug of ours.
    expectError(down, 'UNAVAILABLE');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(down.errors![0]!.message).toBe('The service is temporarily unavailable; try again');
    expect(down.errors![0]!.extensions).toMatchObject({ retryable: true, retryAfterSeconds: 2, reason: 'unreachable' });
    expect(JSON.stringify(down)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:\d{4,5}|dynamo/i);
    expect(await health('/health')).toBe(200);
    expect(await health('/ready')).toBe(503);

    engine = await startEngine({ path: dir, port });
    expect(await health('/ready')).toBe(200);
    expect(dataOf(await gqlAt(server.url, `query($id: ID!) { customer(id: $id) { name } }`, { id: created.id }))).toEqual({
      customer: { name: 'Durable' },
    });
  });

  it('loses nothing acknowledged when the on-disk engine restarts mid-run', async () => {
    const customer = dataOf(await gqlAt(server.url, CREATE, { input: { name: 'Steady', email: `${newId()}@example.com` } })).createCustomer;
    const acknowledged: string[] = [];
    let failures = 0;
    const writer = async () => {
      for (let i = 0; i < 15; i++) {
        const response = await gqlAt(server.url, PLACE, { input: { customerId: customer.id, idempotencyKey: newId(), lines } });
        if (response.data?.placeOrder) acknowledged.push(response.data.placeOrder.id);
        else failures++;
      }
    };
    const restart = async () => {
      while (acknowledged.length < 8) await sleep(5);
      await engine.close();
      await sleep(50);
      engine = await startEngine({ path: dir, port });
    };
    await Promise.all([writer(), writer(), restart()]);
    expect(acknowledged.length + failures).toBe(30);
    expect(acknowledged.length).toBeGreaterThan(8);
    for (const id of acknowledged) {
      const read = dataOf(await gqlAt(server.url, `query($id: ID!) { order(id: $id) { id totalCents lines { lineNo } } }`, { id }));
      expect(read.order).toEqual({ id, totalCents: 1250, lines: [{ lineNo: 1 }, { lineNo: 2 }] });
    }
    const listed = dataOf(
      await gqlAt(server.url, `query($id: ID!) { customer(id: $id) { orders(first: 100) { nodes { id } } } }`, { id: customer.id }),
    );
    const listedIds = listed.customer.orders.nodes.map((n: { id: string }) => n.id);
    for (const id of acknowledged) expect(listedIds).toContain(id);
    // An order whose answer was lost may exist (the commit happened, the answer did not arrive);
    // it is then whole: every listed order has its header and lines.
    for (const { id } of listed.customer.orders.nodes) {
      expect(dataOf(await gqlAt(server.url, `query($id: ID!) { order(id: $id) { lines { lineNo } } }`, { id })).order.lines).toHaveLength(
        2,
      );
    }
  });
});

describe('server processes', () => {
  let engine: EmbeddedEngine;
  let servers: ServerProcess[] = [];
  beforeAll(async () => {
    engine = await startEngine();
    const client = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
    await ensureTable(client, 'app');
    await stockCatalog(new Table('app', client));
    servers = await Promise.all([startServerProcess(engine.endpoint), startServerProcess(engine.endpoint)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await engine?.close();
  });

  const at = (i: number) => servers[i % servers.length]!.url;

  it('two processes keep one email for one customer', async () => {
    const email = `${newId()}@example.com`;
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => gqlAt(at(i), CREATE, { input: { name: `R${i}`, email } })));
    expect(responses.filter((r) => r.data?.createCustomer)).toHaveLength(1);
    expect(responses.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(7);
  });

  it('two processes make one order of one idempotency key', async () => {
    const customer = dataOf(await gqlAt(at(0), CREATE, { input: { name: 'Twice', email: `${newId()}@example.com` } })).createCustomer;
    const key = newId();
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => gqlAt(at(i), PLACE, { input: { customerId: customer.id, idempotencyKey: key, lines } })),
    );
    expect(new Set(responses.map((r) => dataOf(r).placeOrder.id)).size).toBe(1);
    const listed = dataOf(await gqlAt(at(1), `query($id: ID!) { customer(id: $id) { orders { nodes { id } } } }`, { id: customer.id }));
    expect(listed.customer.orders.nodes).toHaveLength(1);
  });

  it('two processes racing status moves leave every copy agreeing', async () => {
    const customer = dataOf(await gqlAt(at(0), CREATE, { input: { name: 'Mover', email: `${newId()}@example.com` } })).createCustomer;
    const order = dataOf(await gqlAt(at(0), PLACE, { input: { customerId: customer.id, idempotencyKey: newId(), lines } })).placeOrder;
    const targets = ['PAID', 'CANCELLED', 'PAID', 'SHIPPED', 'CANCELLED', 'PAID', 'DELIVERED', 'CANCELLED'];
    const responses = await Promise.all(targets.map((status, i) => gqlAt(at(i), MOVE, { id: order.id, status })));
    // A forbidden move is CONFLICT; a move that lost every round of the race is UNAVAILABLE (retryable).
    for (const r of responses) if (r.errors) expect(['CONFLICT', 'UNAVAILABLE']).toContain(r.errors[0]!.extensions?.code);
    const detail = dataOf(await gqlAt(at(1), `query($id: ID!) { order(id: $id) { status } }`, { id: order.id })).order.status;
    const listed = dataOf(await gqlAt(at(0), `query($id: ID!) { customer(id: $id) { orders { nodes { status } } } }`, { id: customer.id }));
    expect(listed.customer.orders.nodes).toEqual([{ status: detail }]);
    const byStatus = dataOf(
      await gqlAt(at(1), `query($s: OrderStatus!) { ordersByStatus(status: $s, first: 100) { nodes { id } } }`, { s: detail }),
    );
    expect(byStatus.ordersByStatus.nodes).toContainEqual({ id: order.id });
  });

  it('finishes in-flight requests on SIGTERM and refuses new ones', async () => {
    const server = await startServerProcess(engine.endpoint);
    const customer = dataOf(
      await gqlAt(server.url, CREATE, { input: { name: 'Graceful', email: `${newId()}@example.com` } }),
    ).createCustomer;
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const stop = engine.faults.inject('GetItem', async (request) => {
      arrived();
      await sleep(500);
      return request.forward();
    });
    try {
      const inFlight = gqlAt(server.url, `query($id: ID!) { customer(id: $id) { name } }`, { id: customer.id });
      await arrival;
      let finished = false;
      void inFlight.then(() => (finished = true));
      server.child.kill('SIGTERM');
      // New connections are refused once the signal has reached the server, while the request in
      // flight (held 500 ms by the engine) has not finished yet.
      const attempt = () =>
        fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }).then(
          () => 'answered',
          () => 'refused',
        );
      let outcome = await attempt();
      for (let tries = 0; outcome === 'answered' && tries < 40; tries++) outcome = await attempt();
      expect({ outcome, finished }).toEqual({ outcome: 'refused', finished: false });
      expect(dataOf(await inFlight)).toEqual({ customer: { name: 'Graceful' } });
      expect(await server.exited).toBe(0);
    } finally {
      stop();
      await server.stop('SIGKILL');
    }
  });
});
