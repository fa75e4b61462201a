/**
 * The access pattern migration 0001 exists for: orders by SKU, served by GSI1 on the order lines.
 * Lines written before the pattern existed carry no GSI1 keys and are unreachable until the
 * backfill runs; new orders are indexed at once. Also its request budget and its input checks.
 * Each test starts its own stack, so counts are exact.
 */
import { describe, expect, it } from 'vitest';
import { runMigration } from '../../src/ops/migrations';
import { migration as m0001 } from '../../src/ops/migrations/0001-order-lines-by-sku';
import { lineToItem, orderKeys, skuKeys } from '../../src/model';
import { expectBadInput, expectBudget } from '../support/fixtures';
import { dataOf } from '../support/graphql';
import { BY_SKU, bySkuData, createCustomer, isLine, linesOf, loadLegacy, placeOrder, stock, useFreshStacks } from '../support/migrations';

const freshStack = useFreshStacks();

describe('orders by SKU (GSI1 on the order lines)', () => {
  it('does not reach orders stored before the SKU index, and reaches them, whole and newest first, once migration 0001 has run', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 3, 12);
    await stack.settled(); // so "not reached" below is the index's answer, not its lag
    const before = await stack.gql(BY_SKU, { sku: 'MUG-002', first: 20 });
    expect(before).toMatchObject({ data: { ordersBySku: { nodes: [], pageInfo: { hasNextPage: false } } } });
    expect(before.errors).toBeUndefined();

    const report = await runMigration(stack.table, m0001);
    expect(report.outcome).toBe('applied');
    await stack.settled(); // ordersBySku reads GSI1, eventually consistent: wait for the backfill to show

    const expected = bySkuData(fixtures, 'MUG-002');
    expect(expected.ordersBySku.nodes.length).toBe(15); // 5 of each customer's 12 orders (a page of 20: lines are costly, see limits.ts)
    const after = await stack.gql(BY_SKU, { sku: 'MUG-002', first: 20 });
    expect({ data: after.data, errors: after.errors }).toEqual({ data: expected, errors: undefined });
    // Every line now carries exactly the keys placeOrder would have written.
    const lines = (await stack.items()).filter(isLine);
    for (const { order, line } of linesOf(fixtures)) {
      const stored = lines.find((item) => item.PK === orderKeys.pk(order.id) && item.SK === orderKeys.line(order.id, line.lineNo).SK);
      expect(stored).toEqual({ ...lineToItem(order.id, line), ...skuKeys.ofLine(order, line) });
    }
  });

  it('reaches a new order without a backfill: placeOrder writes the index keys with its lines, in its one transaction', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    const empty = await stack.gql(BY_SKU, { sku: 'LAMP-9' });
    expect(empty.data).toEqual({ ordersBySku: { nodes: [], pageInfo: { hasNextPage: false } } });

    await stock(stack, ['LAMP-9', 'BOOK-1']);
    stack.engine.wire.reset();
    const order = await placeOrder(stack, ana.id, '2026-09-15T10:30:00.000Z', ['LAMP-9', 'BOOK-1']);
    expect(stack.engine.wire.requests().map((r) => r.operation)).toEqual(['BatchGetItem', 'TransactWriteItems']);

    await stack.settled(); // ordersBySku reads GSI1, eventually consistent, as on DynamoDB
    const response = await stack.gql(BY_SKU, { sku: 'LAMP-9' });
    expect({ data: response.data, errors: response.errors }).toEqual({
      data: {
        ordersBySku: {
          nodes: [
            {
              id: order.id,
              placedAt: order.placedAt,
              status: 'PENDING',
              totalCents: order.totalCents,
              customer: { name: 'Ana' },
              lines: order.lines,
            },
          ],
          pageInfo: { hasNextPage: false },
        },
      },
      errors: undefined,
    });
    const line = (await stack.items()).find((item) => item.PK === orderKeys.pk(order.id) && item.SK === 'LINE#0001');
    expect(line).toMatchObject({ GSI1PK: 'SKU#LAMP-9', GSI1SK: `2026-09-15T10:30:00.000Z#${order.id}#0001` });
  });

  it('lists an order once however many of its lines carry the SKU, and pages through every order exactly once', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    const o1 = await placeOrder(stack, ana.id, '2026-01-01T00:00:00.000Z', ['DUP-A', 'DUP-B', 'DUP-A']);
    const o2 = await placeOrder(stack, ana.id, '2026-01-02T00:00:00.000Z', ['DUP-A']);
    const o3 = await placeOrder(stack, ana.id, '2026-01-03T00:00:00.000Z', ['DUP-A', 'DUP-A', 'DUP-A', 'DUP-B']);
    await placeOrder(stack, ana.id, '2026-01-04T00:00:00.000Z', ['DUP-B']);
    const o5 = await placeOrder(stack, ana.id, '2026-01-05T00:00:00.000Z', ['DUP-A', 'DUP-A']);
    await stack.settled(); // ordersBySku reads GSI1, eventually consistent
    const PAGE = `query($after: String) { ordersBySku(sku: "DUP-A", first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`;

    const pages: Array<{ ids: string[]; hasNextPage: boolean }> = [];
    let after: string | null = null;
    do {
      const page: any = dataOf(await stack.gql(PAGE, { after })).ordersBySku;
      pages.push({ ids: page.edges.map((edge: any) => edge.node.id), hasNextPage: page.pageInfo.hasNextPage });
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(pages).toEqual([
      { ids: [o5.id, o3.id], hasNextPage: true },
      { ids: [o2.id, o1.id], hasNextPage: false },
    ]);

    const all = dataOf(await stack.gql(`{ ordersBySku(sku: "DUP-A", first: 100) { nodes { id } } }`)).ordersBySku.nodes;
    expect(all).toEqual([o5, o3, o2, o1].map((o) => ({ id: o.id })));
    // The first page's 3 lines named 2 orders (o5 twice): one more Query, below o3, found the third.
    const measured = await stack.measure(`{ ordersBySku(sku: "DUP-A", first: 2) { nodes { id } } }`);
    expectBudget(measured, { requests: 3, waves: 3, operations: ['Query', 'Query', 'BatchGetItem'] });
    expect(measured.wire[1]?.body.ExpressionAttributeValues[':before']).toEqual({ S: `${o3.placedAt}#${o3.id}` });
  });

  it('serves a page with 2 requests in 2 waves: a Query on GSI1, then one BatchGetItem of the order headers', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 4, 20);
    await runMigration(stack.table, m0001);
    await stack.settled(); // ordersBySku reads GSI1, eventually consistent: wait for the backfill to show
    const expected = bySkuData(fixtures, 'TEE-003');
    expect(expected.ordersBySku.nodes.length).toBeGreaterThan(20);

    const measured = await stack.measure(
      `{ ordersBySku(sku: "TEE-003", first: 20) { nodes { id placedAt status totalCents } pageInfo { hasNextPage } } }`,
    );
    expectBudget(measured, { requests: 2, waves: 2, operations: ['Query', 'BatchGetItem'] });
    expect(measured.response.data).toEqual({
      ordersBySku: {
        nodes: expected.ordersBySku.nodes
          .slice(0, 20)
          .map(({ id, placedAt, status, totalCents }) => ({ id, placedAt, status, totalCents })),
        pageInfo: { hasNextPage: true },
      },
    });
    const [query, batch] = measured.wire;
    expect(query?.body).toMatchObject({
      IndexName: 'GSI1',
      ScanIndexForward: false,
      Limit: 21,
      ExpressionAttributeValues: { ':pk': { S: 'SKU#TEE-003' } },
    });
    expect(batch?.body.RequestItems.app.Keys).toHaveLength(20);

    const none = await stack.measure(`{ ordersBySku(sku: "NO-SUCH-SKU") { nodes { id } pageInfo { hasNextPage endCursor } } }`);
    expectBudget(none, { requests: 1, waves: 1, operations: ['Query'] });
  });

  it('refuses a SKU with #, an empty SKU, a bad first, a forged cursor and a cursor of another list, before any request', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    await placeOrder(stack, ana.id, '2026-02-01T00:00:00.000Z', ['X-1', 'Y-1']);
    await placeOrder(stack, ana.id, '2026-02-02T00:00:00.000Z', ['X-1', 'Y-1']);
    await stack.settled(); // the genuine cursors below come from GSI1, eventually consistent
    const cursorOfX = dataOf(await stack.gql(`{ ordersBySku(sku: "X-1", first: 1) { pageInfo { endCursor } } }`)).ordersBySku.pageInfo
      .endCursor;
    const statusCursor = dataOf(await stack.gql(`{ ordersByStatus(status: PENDING, first: 1) { pageInfo { endCursor } } }`)).ordersByStatus
      .pageInfo.endCursor;
    const Q = `query($sku: String!, $first: Int, $after: String) { ordersBySku(sku: $sku, first: $first, after: $after) { nodes { id } } }`;

    expectBadInput(await stack.measure(Q, { sku: 'X#1' }));
    expectBadInput(await stack.measure(Q, { sku: '   ' }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', first: 0 }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', first: 101 }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: 'not-a-cursor' }));
    expectBadInput(await stack.measure(Q, { sku: 'Y-1', after: cursorOfX }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: statusCursor }));
    const forged = Buffer.from(JSON.stringify([1, 'sku:X-1', { before: 'SKU#X-1' }])).toString('base64url');
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: forged }));
    // The genuine cursor works.
    expect(dataOf(await stack.gql(Q, { sku: 'X-1', after: cursorOfX })).ordersBySku.nodes).toHaveLength(1);
  });
});
