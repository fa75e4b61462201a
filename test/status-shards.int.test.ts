import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { dataOf } from './support/graphql';
import { newId, customerToItem, shardOf, STATUS_SHARDS, summaryToItem, type OrderRecord } from '../src/model';

/**
 * The write-sharded status index when orders do not spread evenly: the first wave reads each
 * shard's share of a page plus a margin, and only a shard that may hold more of the page is read
 * again. Orders are given ids that all fall in one shard, the worst case.
 */
let stack: Stack;
const customer = { id: newId(), name: 'Skewed', email: 'skewed@example.com', createdAt: '2026-01-01T00:00:00.000Z' };
const orders: OrderRecord[] = [];

beforeAll(async () => {
  stack = await startStack();
  while (orders.length < 45) {
    const id = newId();
    if (shardOf(id) !== 0) continue;
    const placedAt = new Date(Date.UTC(2026, 5, 1) - orders.length * 3600_000).toISOString();
    orders.push({ id, customerId: customer.id, placedAt, status: 'CANCELLED', totalCents: 100 + orders.length, lineCount: 1 });
  }
  await stack.load([customerToItem(customer), ...orders.map(summaryToItem)]);
  await stack.settled(); // every test reads these through GSI1, eventually consistent
});
afterAll(async () => {
  await stack?.close();
});

const PAGE = `query($first: Int, $after: String) { ordersByStatus(status: CANCELLED, first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;

describe('the status index with every order in one shard', () => {
  it('reads that shard further, in later waves, until the page is whole', async () => {
    const { response, wire } = await stack.measure(PAGE, { first: 30 });
    expect(dataOf(response).ordersByStatus).toEqual({
      nodes: orders.slice(0, 30).map(({ id }) => ({ id })),
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
    });
    const perShard = Math.ceil(31 / STATUS_SHARDS) + 8;
    const rounds = Math.ceil(31 / perShard);
    expect(wire).toHaveLength(STATUS_SHARDS + (rounds - 1));
    expect(response.extensions?.dynamodb.waves).toBe(rounds);
    expect(wire.filter((r) => r.body.ExpressionAttributeValues[':pk'].S === 'STATUS#CANCELLED#0')).toHaveLength(rounds);
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
