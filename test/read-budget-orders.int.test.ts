/**
 * The request budget of the brief ("Single-query reads") for order reads, one row at a time,
 * measured on the wire: order detail, a customer's latest orders with their lines, orders by
 * status, and the explain extension itself. Each test counts the DynamoDB requests that reached the
 * engine, reads the waves from the explain extension (which must agree with the wire), and compares
 * the whole GraphQL `data` with the fixture it loaded. Customer reads are in read-budget.int.test.ts;
 * the shared customers are in support/read-world.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import {
  ADDRESS_FIELDS,
  expectBudget,
  expectExplainAgrees,
  LINE_FIELDS,
  linesData,
  ORDER_FIELDS,
  orderData,
  World,
  type CustomerFixture,
} from './support/fixtures';
import { loadReadWorld, SCREEN } from './support/read-world';
import { MAX_ADDRESSES, newId, DEFAULT_WRITE_SHARDS } from '../src/model';

let stack: Stack;
let world: World;
let ana: CustomerFixture;
let payers: CustomerFixture[];

beforeAll(async () => {
  stack = await startStack();
  ({ world, ana, payers } = await loadReadWorld(stack));
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

describe('order detail', () => {
  const order = () => ana.orders[3]!;

  it('serves header and lines with one Query', async () => {
    const measured = await stack.measure(`query($id: ID!) { order(id: $id) { ${ORDER_FIELDS} lines { ${LINE_FIELDS} } } }`, {
      id: order().id,
    });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ order: { ...orderData(order()), lines: linesData(order()) } });
  });

  it("adds the order's customer (name and addresses) with a second request in a second wave", async () => {
    const measured = await stack.measure(
      `query($id: ID!) { order(id: $id) { ${ORDER_FIELDS} lines { ${LINE_FIELDS} } customer { name addresses { ${ADDRESS_FIELDS} } } } }`,
      { id: order().id },
    );
    expectBudget(measured, { requests: 2, waves: 2 });
    expect(measured.response.data).toEqual({
      order: { ...orderData(order()), lines: linesData(order()), customer: { name: ana.customer.name, addresses: ana.addresses } },
    });
  });

  it('reads one order asked for under two aliases once', async () => {
    const measured = await stack.measure(`query($id: ID!) { a: order(id: $id) { status } b: order(id: $id) { lines { lineNo } } }`, {
      id: order().id,
    });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({
      a: { status: order().status },
      b: { lines: order().lines.map(({ lineNo }) => ({ lineNo })) },
    });
  });

  it('answers a missing order with null and one request', async () => {
    const measured = await stack.measure(`query($id: ID!) { order(id: $id) { id lines { lineNo } } }`, { id: newId() });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ order: null });
  });
});

describe("a customer's latest orders with their lines", () => {
  it('costs one Query for the orders, then one per order, in two waves', async () => {
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) { orders(first: 5) { nodes { id lines { ${LINE_FIELDS} } } } } }`,
      { id: ana.customer.id },
    );
    expectBudget(measured, { requests: 6, waves: 2, operations: Array(6).fill('Query') });
    expect(measured.response.data).toEqual({
      customer: { orders: { nodes: ana.orders.slice(0, 5).map((order) => ({ id: order.id, lines: linesData(order) })) } },
    });
    const explained = measured.response.extensions?.dynamodb.requests as Array<{ wave: number }>;
    expect(explained.map((r) => r.wave).sort()).toEqual([1, 2, 2, 2, 2, 2]);
  });
});

/** Top-up Queries of a status page: range reads above the cut, at most one per shard but the cut's own. */
function statusTopUps(wire: ReadonlyArray<{ operation: string; body: any }>): number {
  const topUps = wire.filter((r) => r.operation === 'Query' && String(r.body.KeyConditionExpression).includes(':cut')).length;
  expect(topUps).toBeLessThanOrEqual(DEFAULT_WRITE_SHARDS - 1);
  return topUps;
}

describe('orders by status', () => {
  it("serves a page of PAID orders and their customers' names with a Query on GSI1 and one BatchGetItem", async () => {
    const measured = await stack.measure(
      `{ ordersByStatus(status: PAID, first: 50) { nodes { id customer { name } } pageInfo { hasNextPage } } }`,
    );
    // One Query per shard of the status index in one wave, then one BatchGetItem. Ids hash at random, so a
    // shard may run short of its share plus margin: then it alone is read again, above the cut, in one more wave.
    const topUps = statusTopUps(measured.wire);
    expectBudget(measured, {
      requests: DEFAULT_WRITE_SHARDS + 1 + topUps,
      waves: topUps > 0 ? 3 : 2,
      operations: [...Array(DEFAULT_WRITE_SHARDS + topUps).fill('Query'), 'BatchGetItem'],
    });
    const paid = world.ordersIn('PAID');
    expect(paid.length).toBeGreaterThan(50);
    const page = paid.slice(0, 50);
    expect(new Set(page.map((order) => order.customerId)).size).toBe(payers.length);
    expect(measured.response.data).toEqual({
      ordersByStatus: {
        nodes: page.map((order) => ({ id: order.id, customer: { name: world.customerOf(order).name } })),
        pageInfo: { hasNextPage: true },
      },
    });
    const [query] = measured.wire;
    expect(query?.body.IndexName).toBe('GSI1');
    expect(measured.response.extensions?.dynamodb.requests[0].index).toBe('GSI1');
  });

  it('serves the orders alone from the index with one Query per shard, in one wave (two when a shard ran short)', async () => {
    const measured = await stack.measure(`{ ordersByStatus(status: PAID, first: 7) { nodes { ${ORDER_FIELDS} } } }`);
    const topUps = statusTopUps(measured.wire);
    expectBudget(measured, {
      requests: DEFAULT_WRITE_SHARDS + topUps,
      waves: topUps > 0 ? 2 : 1,
      operations: Array(DEFAULT_WRITE_SHARDS + topUps).fill('Query'),
    });
    expect(measured.response.data).toEqual({ ordersByStatus: { nodes: world.ordersIn('PAID').slice(0, 7).map(orderData) } });
  });
});

describe('the explain extension', () => {
  it('lists each request with its wave, items and key condition, matching the wire', async () => {
    const measured = await stack.measure(SCREEN, { id: ana.customer.id });
    expectExplainAgrees(measured);
    const [request] = measured.response.extensions?.dynamodb?.requests ?? [];
    expect(request).toMatchObject({ operation: 'Query', index: null, wave: 1, items: 1 + MAX_ADDRESSES + 20 + 1 }); // Ana has 2 addresses and 30 orders
    expect(request.keyCondition).toContain(`CUSTOMER#${ana.customer.id}`);
    expect(measured.wire[0]?.body.KeyConditionExpression).toBeDefined();
  });
});
