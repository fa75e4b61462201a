import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { loadCatalog, writeHelpers } from './support/write-path';
import { dataOf } from './support/graphql';
import { newId, customerToItem, shardOf, DEFAULT_WRITE_SHARDS, summaryToItem, statusPageReadBound, type OrderRecord } from '../src/model';
import { firstWaveShare } from '../src/model/shard-merge';
import { doctor } from '../src/ops/doctor';
import { runMigration } from '../src/ops/migrations';
import { migration as m0002 } from '../src/ops/migrations/0002-status-index-shards';

/**
 * The write-sharded status index when orders do not spread evenly: the first wave reads each
 * shard's share of a page plus a margin (firstWaveShare), and only a shard that may hold more of
 * the page is read again. Orders are given ids that all fall in one shard, the worst case.
 */
let stack: Stack;
const customer = { id: newId(), name: 'Skewed', email: 'skewed@example.com', createdAt: '2026-01-01T00:00:00.000Z' };
const orders: OrderRecord[] = [];

/** SHIPPED: the 30 newest in shard 0, then 12 older ones in each other shard, interleaved. */
const shipped: OrderRecord[] = [];

/** An order of `customer` whose id falls in `shard`, `hours` before June 1st. */
function orderIn(shard: number, hours: number, status: OrderRecord['status'], n: number): OrderRecord {
  for (;;) {
    const id = newId();
    if (shardOf(id, DEFAULT_WRITE_SHARDS) !== shard) continue;
    const placedAt = new Date(Date.UTC(2026, 5, 1) - hours * 3600_000).toISOString();
    return { id, customerId: customer.id, placedAt, status, totalCents: 100 + n, lineCount: 1 };
  }
}

beforeAll(async () => {
  stack = await startStack();
  while (orders.length < 45) orders.push(orderIn(0, orders.length, 'CANCELLED', orders.length));
  for (let n = 0; n < 30; n++) shipped.push(orderIn(0, n, 'SHIPPED', n));
  for (let n = 0; n < 36; n++) shipped.push(orderIn(1 + (n % 3), 30 + n, 'SHIPPED', 30 + n));
  await stack.load([
    customerToItem(customer),
    ...orders.map((order) => summaryToItem(order, DEFAULT_WRITE_SHARDS)),
    ...shipped.map((order) => summaryToItem(order, DEFAULT_WRITE_SHARDS)),
  ]);
  await stack.settled(); // every test reads these through GSI1, eventually consistent
});
afterAll(async () => {
  await stack?.close();
});

const PAGE = `query($first: Int, $after: String) { ordersByStatus(status: CANCELLED, first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;

describe('the status index with every order in one shard', () => {
  it('reads that shard once more, for exactly the missing items, in a second wave', async () => {
    const { response, wire } = await stack.measure(PAGE, { first: 30 });
    expect(dataOf(response).ordersByStatus).toEqual({
      nodes: orders.slice(0, 30).map(({ id }) => ({ id })),
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
    });
    const share = firstWaveShare(31, DEFAULT_WRITE_SHARDS);
    expect(wire).toHaveLength(DEFAULT_WRITE_SHARDS + 1);
    expect(response.extensions?.dynamodb.waves).toBe(2);
    const shard0 = wire.filter((r) => r.body.ExpressionAttributeValues[':pk'].S === 'STATUS#CANCELLED#0');
    expect(shard0.map((r) => r.body.Limit)).toEqual([share, 31 - share]);
  });

  it('pages through every order exactly once', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const result: any = dataOf(await stack.gql(PAGE, { first: 20, after })).ordersByStatus;
      seen.push(...result.nodes.map((n: { id: string }) => n.id));
      if (!result.pageInfo.hasNextPage) break;
      after = result.pageInfo.endCursor;
    }
    expect(seen).toEqual(orders.map(({ id }) => id));
  });
});

const SHIPPED = `query($first: Int, $after: String) { ordersByStatus(status: SHIPPED, first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;

describe('the status index with the newest orders in one shard and older ones in the others', () => {
  it('reads the short shard again only above the cut, in one more wave, never past W', async () => {
    const { response, wire } = await stack.measure(SHIPPED, { first: 20 });
    expect(dataOf(response).ordersByStatus.nodes).toEqual(shipped.slice(0, 20).map(({ id }) => ({ id })));
    const share = firstWaveShare(21, DEFAULT_WRITE_SHARDS);
    expect(response.extensions?.dynamodb.waves).toBe(2);
    expect(wire).toHaveLength(DEFAULT_WRITE_SHARDS + 1);
    const topUp = wire.at(-1)!.body;
    expect(topUp.ExpressionAttributeValues[':pk'].S).toBe('STATUS#SHIPPED#0');
    expect(topUp.KeyConditionExpression).toBe('GSI1PK = :pk AND GSI1SK > :cut');
    expect(topUp.Limit).toBe(21 - share);
  });

  it('pages through every order exactly once, newest first, with any page size', async () => {
    for (const first of [1, 7, 20, 50]) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 80; page++) {
        const result: any = dataOf(await stack.gql(SHIPPED, { first, after })).ordersByStatus;
        seen.push(...result.nodes.map((n: { id: string }) => n.id));
        if (!result.pageInfo.hasNextPage) break;
        after = result.pageInfo.endCursor;
      }
      expect(seen).toEqual(shipped.map(({ id }) => id));
    }
  });
});

/**
 * The shard count is the table's (`Table.writeShards`, which `STATUS_SHARDS` configures): a stack
 * whose table has 2 writes every summary on one of 2 status keys, and reads exactly 2 per page,
 * pages with cursors of 2 positions and is charged 2 × W by admission, beside a default stack.
 */
describe('a table of 2 shards', () => {
  let two: Stack;
  const { createCustomer, placeOrder } = writeHelpers(() => two);
  const placed: string[] = [];
  beforeAll(async () => {
    two = await startStack({ writeShards: 2 });
    await loadCatalog(two);
    const buyer = await createCustomer('Two shards');
    for (let n = 0; n < 12; n++) placed.unshift((await placeOrder(buyer.id)).id);
    await two.settled(); // read through GSI1 below
  });
  afterAll(async () => {
    await two?.close();
  });

  const PENDING = `query($first: Int, $after: String) { ordersByStatus(status: PENDING, first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;

  it('writes each placed summary on one of 2 shards, hashed on 2', async () => {
    expect(two.table.writeShards).toBe(2);
    const summaries = (await two.items()).filter((item) => item.type === 'ORDER');
    expect(summaries).toHaveLength(12);
    for (const summary of summaries) expect(summary.GSI1PK).toBe(`STATUS#PENDING#${shardOf(String(summary.id), 2)}`);
    // Both shards are written to (12 random ids on 2 shards: all in one has odds 2 in 4096).
    expect(new Set(summaries.map((summary) => summary.GSI1PK))).toEqual(new Set(['STATUS#PENDING#0', 'STATUS#PENDING#1']));
  });

  it('reads exactly 2 shards a page, in one wave, and pages through every order once', async () => {
    const { response, wire } = await two.measure(PENDING, { first: 100 });
    expect(dataOf(response).ordersByStatus.nodes).toEqual(placed.map((id) => ({ id })));
    expect(wire.map((request) => request.operation)).toEqual(['Query', 'Query']);
    expect(response.extensions?.dynamodb.waves).toBe(1);
    expect(new Set(wire.map((request) => request.body.ExpressionAttributeValues[':pk'].S))).toEqual(
      new Set(['STATUS#PENDING#0', 'STATUS#PENDING#1']),
    );
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 20; page++) {
      const { response: paged, wire: pageWire } = await two.measure(PENDING, { first: 5, after });
      expect(pageWire.length).toBeLessThanOrEqual(2 + 1); // 2 shards, and a top-up wave at most one shard
      const result: any = dataOf(paged).ordersByStatus;
      seen.push(...result.nodes.map((n: { id: string }) => n.id));
      if (!result.pageInfo.hasNextPage) break;
      after = result.pageInfo.endCursor;
    }
    expect(seen).toEqual(placed);
  });

  it('refuses a cursor of another shard count', async () => {
    const fromDefault = dataOf(await stack.gql(PAGE, { first: 1 })).ordersByStatus.pageInfo.endCursor;
    const crossed = await two.gql(`query($after: String) { ordersByStatus(status: CANCELLED, first: 1, after: $after) { nodes { id } } }`, {
      after: fromDefault,
    });
    expect(crossed.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('is charged for 2 shards by admission', async () => {
    const { response } = await two.measure(PENDING, { first: 100 });
    expect(statusPageReadBound(100, 2)).toBe(2 * 101);
    expect(response.extensions?.cost?.reads).toBe(statusPageReadBound(100, 2));
    const { response: atDefault } = await stack.measure(PENDING, { first: 100 });
    expect(atDefault.extensions?.cost?.reads).toBe(statusPageReadBound(100, DEFAULT_WRITE_SHARDS));
  });
  it('is checked and repaired at its own count: the doctor and migration 0002 use the table’s, not the default', async () => {
    // At 2 shards every summary placed above is where it belongs.
    const healthy = await doctor(two, { segments: 2 });
    expect(healthy.issues.filter((issue) => issue.code === 'STALE_GSI1_KEYS')).toEqual([]);
    // A summary written at the default count, on a shard this table does not have (2 or 3).
    const ids = Array.from({ length: 64 }, () => newId());
    const id = ids.find((candidate) => shardOf(candidate, DEFAULT_WRITE_SHARDS) >= 2)!;
    const customer = { id: newId(), name: 'Old layout', email: `old-${newId()}@example.com`, createdAt: '2026-01-01T00:00:00.000Z' };
    const order: OrderRecord = {
      id,
      customerId: customer.id,
      placedAt: '2026-09-01T10:00:00.000Z',
      status: 'PENDING',
      totalCents: 1,
      lineCount: 1,
    };
    const stale = summaryToItem(order, DEFAULT_WRITE_SHARDS);
    await two.load([customerToItem(customer), stale]);
    const sick = await doctor(two, { segments: 2 });
    expect(sick.issues.filter((issue) => issue.code === 'STALE_GSI1_KEYS').map((issue) => issue.count)).toEqual([1]);

    const report = await runMigration(two.table, m0002, { force: true });
    expect(report.run).toMatchObject({ selected: 1, updated: 1, unresolved: 0 });
    const [rewritten] = (await two.items()).filter((item) => item.id === id && item.type === 'ORDER');
    expect(rewritten).toEqual({ ...stale, GSI1PK: `STATUS#PENDING#${shardOf(id, 2)}` });
    expect((await doctor(two, { segments: 2 })).issues.filter((issue) => issue.code === 'STALE_GSI1_KEYS')).toEqual([]);
  });
});
