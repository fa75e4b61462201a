/**
 * The write path for orders: placeOrder (priced from the catalog, idempotent per key, all of an
 * order in one transaction) and updateOrderStatus (only allowed moves, header, summary and status
 * index moved together, also under races), every refusal leaving the table as it was. Customers
 * are in write-path.int.test.ts; the shared mutations and helpers are in support/write-path.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, operations, type Stack } from './support/stack';
import { dataOf, expectError } from './support/graphql';
import { lines, loadCatalog, MOVE, PLACE, writeHelpers } from './support/write-path';
import { DEFAULT_WRITE_SHARDS, idempotencyToItem, MAX_LINES, newId, shardOf } from '../src/model';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await loadCatalog(stack);
});
afterAll(async () => {
  await stack?.close();
});

const { createCustomer, placeOrder, expectRefused, itemsUnder } = writeHelpers(() => stack);

describe('placeOrder', () => {
  it('reads the catalog prices and the profile, then writes summary, header, lines, idempotency record, sequence and event in one TransactWriteItems, with the total computed here', async () => {
    const customer = await createCustomer('Buyer');
    const placedAt = '2026-09-15T10:30:00Z';
    const { response, wire } = await stack.measure(PLACE, {
      input: { customerId: customer.id, idempotencyKey: 'order-1', lines, placedAt },
    });
    const order = dataOf(response).placeOrder;
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(response.extensions?.dynamodb?.waves).toBe(2);
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      placedAt: '2026-09-15T10:30:00.000Z',
      status: 'PENDING',
      totalCents: 2 * 1250 + 899,
      lines: [
        { lineNo: 1, sku: 'BOOK-1', quantity: 2, unitPriceCents: 1250 },
        { lineNo: 2, sku: 'MUG-2', quantity: 1, unitPriceCents: 899 },
      ],
    });
    const all = await stack.items();
    expect(all.find((i) => i.PK === `CUSTOMER#${customer.id}` && i.SK === `ORDER#2026-09-15T10:30:00.000Z#${order.id}`)).toMatchObject({
      GSI1PK: `STATUS#PENDING#${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`,
      GSI1SK: `2026-09-15T10:30:00.000Z#${order.id}`,
      totalCents: 3399,
    });
    expect(
      all
        .filter((i) => i.PK === `ORDER#${order.id}`)
        .map((i) => i.SK)
        .sort(),
    ).toEqual(['LINE#0001', 'LINE#0002', 'ORDER']);
    const record = all.find((i) => i.PK === `IDEMPOTENCY#${customer.id}#order-1`)!;
    const now = Date.now() / 1000;
    expect(record.orderId).toBe(order.id);
    expect(record.expiresAt).toBeGreaterThan(now + 23 * 3600);
    expect(record.expiresAt).toBeLessThan(now + 25 * 3600);
    // Only idempotency records and outbox events carry the TTL attribute.
    expect(all.filter((i) => 'expiresAt' in i).every((i) => /^(IDEMPOTENCY|EVENT)#/.test(String(i.PK)))).toBe(true);
    expect(all.find((i) => i.PK === `EVENT#Order#${order.id}` && i.SK === 'SEQ#0000000001')).toMatchObject({
      eventType: 'OrderPlaced',
      customerId: customer.id,
      payload: { orderId: order.id, status: 'PENDING', totalCents: 3399, lineCount: 2, placedAt: '2026-09-15T10:30:00.000Z' },
    });
    expect(wire[1]!.body.TransactItems).toHaveLength(4 + 2);
  });

  it('returns the same order for the same key and payload, and writes nothing new', async () => {
    const customer = await createCustomer('Replayer');
    const first = await placeOrder(customer.id, 'replay-1');
    const before = await stack.items();
    const again = await placeOrder(customer.id, 'replay-1');
    expect(again).toEqual(first);
    expect((await stack.items()).length).toBe(before.length);
  });

  it('refuses the same key with another payload with CONFLICT', async () => {
    const customer = await createCustomer('Conflicted');
    await placeOrder(customer.id, 'reused-1');
    await expectRefused('CONFLICT', () =>
      stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: 'reused-1', lines: [{ sku: 'OTHER', quantity: 1 }] } }),
    );
  });

  it('treats an expired idempotency record that DynamoDB has not deleted yet as absent', async () => {
    const customer = await createCustomer('Late');
    const stale = idempotencyToItem({
      customerId: customer.id,
      key: 'expired-1',
      orderId: newId(),
      fingerprint: 'another payload',
      expiresAt: Math.floor(Date.now() / 1000) - 60,
    });
    await stack.load([stale]);
    const order = await placeOrder(customer.id, 'expired-1');
    const record = (await stack.items()).find((i) => i.PK === `IDEMPOTENCY#${customer.id}#expired-1`)!;
    expect(record.orderId).toBe(order.id);
    expect(record.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('makes one order of 8 concurrent calls with one key', async () => {
    const customer = await createCustomer('Impatient');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: 'race-1', lines } })),
    );
    const ids = new Set(responses.map((r) => dataOf(r).placeOrder.id));
    expect(ids.size).toBe(1);
    const headers = (await stack.items()).filter((i) => i.SK === 'ORDER' && i.customerId === customer.id);
    expect(headers.map((h) => h.id)).toEqual([...ids]);
    const summaries = (await itemsUnder(`CUSTOMER#${customer.id}`)).filter((i) => String(i.SK).startsWith('ORDER#'));
    expect(summaries).toHaveLength(1);
  });

  it('answers NOT_FOUND for a missing customer and writes nothing', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(PLACE, { input: { customerId: newId(), idempotencyKey: 'nobody-1', lines } }));
  });

  it(`takes ${MAX_LINES} lines, the most one transaction holds`, async () => {
    const customer = await createCustomer('Bulk');
    const many = Array.from({ length: MAX_LINES }, (_, i) => ({ sku: `SKU-${i}`, quantity: 1 }));
    const { response, wire } = await stack.measure(
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { totalCents lines { lineNo } } }`,
      { input: { customerId: customer.id, idempotencyKey: 'bulk-1', lines: many } },
    );
    const order = dataOf(response).placeOrder;
    expect(order.totalCents).toBe(MAX_LINES * 100);
    expect(order.lines).toHaveLength(MAX_LINES);
    // 95 distinct SKUs and the profile are still one BatchGetItem (≤ 100 keys).
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(wire[0]!.body.RequestItems.app.Keys).toHaveLength(MAX_LINES + 1);
    expect(wire[1]!.body.TransactItems).toHaveLength(100);
  });

  const bad = (patch: Record<string, unknown>) => async () => {
    const customer = await createCustomer('Bad');
    return stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: `bad-${newId()}`, lines, ...patch } });
  };
  it.each([
    ['a quantity of 0', { lines: [{ sku: 'A', quantity: 0 }] }],
    ['a negative quantity', { lines: [{ sku: 'A', quantity: -2 }] }],
    ['no lines', { lines: [] }],
    [
      `${MAX_LINES + 1} lines (more than one transaction holds)`,
      { lines: Array.from({ length: MAX_LINES + 1 }, () => ({ sku: 'A', quantity: 1 })) },
    ],
    ['a total beyond Int (at catalog prices)', { lines: [{ sku: 'PRICEY', quantity: 100000 }] }],
    ['a sku holding the key separator', { lines: [{ sku: 'A#B', quantity: 1 }] }],
    ['a placedAt in the future (beyond 5 minutes of clock skew)', { placedAt: new Date(Date.now() + 10 * 60_000).toISOString() }],
    ['an idempotency key holding the key separator', { idempotencyKey: 'k#1' }],
    ['an empty idempotency key', { idempotencyKey: '' }],
    ['a malformed placedAt', { placedAt: 'yesterday' }],
    ['a placedAt that is not UTC', { placedAt: '2026-09-01T10:00:00+02:00' }],
  ])('refuses %s with BAD_USER_INPUT and writes nothing', async (_case, patch) => {
    const mutate = bad(patch);
    const before = await stack.items();
    const response = await mutate();
    expectError(response, 'BAD_USER_INPUT');
    // The only new items are those of the customer the case created: profile, email guard, CustomerCreated.
    const after = await stack.items();
    const others = (items: typeof after) => items.filter((i) => !/^(CUSTOMER|EMAIL|EVENT#Customer)#/.test(String(i.PK)));
    expect(others(after)).toEqual(others(before));
    expect(after.length - before.length).toBe(3);
  });

  it('refuses a malformed customer id before any request', async () => {
    await expectRefused('BAD_USER_INPUT', () => stack.gql(PLACE, { input: { customerId: 'x#y', idempotencyKey: 'k', lines } }), {
      requests: 0,
    });
  });
});

describe('updateOrderStatus', () => {
  const statusOf = async (orderId: string) => {
    const all = await stack.items();
    const header = all.find((i) => i.PK === `ORDER#${orderId}` && i.SK === 'ORDER')!;
    const summary = all.find((i) => i.SK === `ORDER#${header.placedAt}#${orderId}`)!;
    return { header: header.status, summary: summary.status, index: summary.GSI1PK };
  };

  it('walks PENDING → PAID → SHIPPED → DELIVERED, moving header, summary and GSI1 key together', async () => {
    const customer = await createCustomer('Walker');
    const order = await placeOrder(customer.id);
    for (const status of ['PAID', 'SHIPPED', 'DELIVERED']) {
      const { response, wire } = await stack.measure(MOVE, { id: order.id, status });
      expect(dataOf(response).updateOrderStatus).toEqual({ id: order.id, status });
      expect(operations(wire)).toEqual(['GetItem', 'TransactWriteItems']);
      expect(await statusOf(order.id)).toEqual({
        header: status,
        summary: status,
        index: `STATUS#${status}#${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`,
      });
    }
    const byStatus = `query($status: OrderStatus!) { ordersByStatus(status: $status, first: 100) { nodes { id } } }`;
    await stack.settled(); // ordersByStatus reads GSI1, eventually consistent: wait for the last move to show
    expect(dataOf(await stack.gql(byStatus, { status: 'DELIVERED' })).ordersByStatus.nodes).toContainEqual({ id: order.id });
    expect(dataOf(await stack.gql(byStatus, { status: 'PENDING' })).ordersByStatus.nodes).not.toContainEqual({ id: order.id });
  });

  it.each([
    [['PAID', 'SHIPPED', 'DELIVERED'], 'CANCELLED'],
    [['PAID', 'SHIPPED'], 'CANCELLED'],
    [[], 'SHIPPED'],
    [[], 'PENDING'],
    [['CANCELLED'], 'PAID'],
  ])('refuses a forbidden move (after %j, to %s) with CONFLICT and changes nothing', async (path, to) => {
    const customer = await createCustomer('Stuck');
    const order = await placeOrder(customer.id);
    for (const status of path) await stack.gql(MOVE, { id: order.id, status });
    await expectRefused('CONFLICT', () => stack.gql(MOVE, { id: order.id, status: to }));
  });

  it('answers NOT_FOUND for a missing order and BAD_USER_INPUT for a malformed id', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(MOVE, { id: newId(), status: 'PAID' }));
    await expectRefused('BAD_USER_INPUT', () => stack.gql(MOVE, { id: 'ORDER#x', status: 'PAID' }), { requests: 0 });
  });

  it('keeps every copy in agreement when 8 moves race', async () => {
    const customer = await createCustomer('Racer');
    const order = await placeOrder(customer.id);
    const targets = ['PAID', 'CANCELLED', 'PAID', 'SHIPPED', 'CANCELLED', 'PAID', 'DELIVERED', 'CANCELLED'];
    const responses = await Promise.all(targets.map((status) => stack.gql(MOVE, { id: order.id, status })));
    for (const response of responses) {
      if (response.errors) expect(response.errors[0]!.extensions?.code).toBe('CONFLICT');
    }
    const landed = responses.filter((r) => r.data?.updateOrderStatus).map((r) => r.data.updateOrderStatus.status);
    expect(landed.length).toBeGreaterThan(0);
    const final = await statusOf(order.id);
    expect(final.summary).toBe(final.header);
    expect(final.index).toBe(`STATUS#${final.header}#${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`);
    expect(landed).toContain(final.header);
  });
});
