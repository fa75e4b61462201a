import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigration } from '../src/ops/migrations';
import { migration as m0002 } from '../src/ops/migrations/0002-status-index-shards';
import { DEFAULT_WRITE_SHARDS, newId, customerToItem, statusKeys, summaryToItem, type OrderRecord } from '../src/model';
import { doctor } from '../src/ops/doctor';
import { dataOf } from './support/graphql';
import { startStack, type Stack } from './support/stack';

/**
 * Migration 0002 moves order summaries onto the status index's shard keys: summaries written
 * before the index was sharded (`STATUS#<status>`) or under another `DEFAULT_WRITE_SHARDS` are invisible
 * to `ordersByStatus` until it runs.
 */
let stack: Stack;
const customer = { id: newId(), name: 'Early', email: 'early@example.com', createdAt: '2025-01-01T00:00:00.000Z' };
const orders: OrderRecord[] = Array.from({ length: 12 }, (_, i) => ({
  id: newId(),
  customerId: customer.id,
  placedAt: new Date(Date.UTC(2025, 2, 1) - i * 86_400_000).toISOString(),
  status: i % 3 === 0 ? 'SHIPPED' : 'PAID',
  totalCents: 1000 + i,
  lineCount: 1,
}));
const unsharded = (order: OrderRecord) => ({ ...summaryToItem(order, DEFAULT_WRITE_SHARDS), GSI1PK: `STATUS#${order.status}` });
const wrongShard = (order: OrderRecord) => ({ ...summaryToItem(order, DEFAULT_WRITE_SHARDS), GSI1PK: `STATUS#${order.status}#99` });

const PAGE = `query($status: OrderStatus!) { ordersByStatus(status: $status, first: 100) { nodes { id status totalCents customer { name } } } }`;
const expected = (status: string) =>
  orders.filter((o) => o.status === status).map((o) => ({ id: o.id, status, totalCents: o.totalCents, customer: { name: 'Early' } }));

beforeAll(async () => {
  stack = await startStack();
  // Half as the unsharded layout wrote them, half on a shard that no longer exists.
  await stack.load([customerToItem(customer), ...orders.map((order, i) => (i % 2 === 0 ? unsharded(order) : wrongShard(order)))]);
  await stack.settled(); // so "unreachable" below is the index's answer, not its lag
});
afterAll(async () => {
  await stack?.close();
});

describe('migration 0002: the status index shard keys', () => {
  it('makes summaries written unsharded or on another shard count reachable, and changes nothing else', async () => {
    expect(dataOf(await stack.gql(PAGE, { status: 'PAID' })).ordersByStatus.nodes).toEqual([]);
    // The doctor sees every misplaced summary, and would fail a deploy on it.
    const sick = await doctor(stack, { segments: 2 });
    expect(sick.issues.map((issue) => [issue.code, issue.count])).toEqual([['STALE_GSI1_KEYS', orders.length]]);
    expect(sick.summary.exitCode).toBe(1);
    const before = await stack.items();

    const report = await runMigration(stack.table, m0002);
    expect(report.outcome).toBe('applied');
    expect(report.run).toMatchObject({ selected: orders.length, updated: orders.length, unresolved: 0 });

    await stack.settled(); // ordersByStatus reads GSI1, eventually consistent: wait for the rewrites to show
    expect(dataOf(await stack.gql(PAGE, { status: 'PAID' })).ordersByStatus.nodes).toEqual(expected('PAID'));
    expect(dataOf(await stack.gql(PAGE, { status: 'SHIPPED' })).ordersByStatus.nodes).toEqual(expected('SHIPPED'));
    expect((await doctor(stack, { segments: 2 })).issues).toEqual([]);
    const after = new Map((await stack.items()).map((item) => [`${item.PK}|${item.SK}`, item]));
    for (const item of before) {
      const now = after.get(`${item.PK}|${item.SK}`)!;
      if (String(item.SK).startsWith('ORDER#')) {
        const order = orders.find((o) => o.id === item.id)!;
        expect(now).toEqual({ ...item, GSI1PK: statusKeys.ofOrder(order, DEFAULT_WRITE_SHARDS).GSI1PK });
      } else {
        expect(now).toEqual(item);
      }
    }
  });

  it('selects nothing on a second, forced run', async () => {
    const report = await runMigration(stack.table, m0002, { force: true });
    expect(report.run).toMatchObject({ selected: 0, updated: 0 });
  });

  it('leaves a summary alone when its status moved after the scan', async () => {
    const order = orders[1]!;
    // The context a page of this table's scan is rewritten with: its shard count.
    const decision = m0002.rewrite(wrongShard(order), await m0002.prepare(stack.table, []));
    expect(decision).toEqual({
      rewrite: {
        key: { PK: `CUSTOMER#${customer.id}`, SK: `ORDER#${order.placedAt}#${order.id}` },
        set: { GSI1PK: statusKeys.ofOrder(order, DEFAULT_WRITE_SHARDS).GSI1PK },
        condition: {
          expression: '#status = :status AND GSI1PK = :was',
          names: { '#status': 'status' },
          values: { ':status': order.status, ':was': `STATUS#${order.status}#99` },
        },
      },
    });
  });
});
