/**
 * The product under DynamoDB's transaction conflicts: the engine cancels 30% of TransactWriteItems
 * with a `TransactionConflict` (seeded `conflictChance`), as a busy table on Amazon can, and every
 * placeOrder still succeeds once, because writeTransaction (src/model/guards.ts) sends a conflicted
 * transaction again after a backoff. Nothing is written twice: one order per idempotency key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { loadCatalog, writeHelpers } from './support/write-path';

let stack: Stack;
beforeAll(async () => {
  // Seed 3, as before. writeTransaction now retries a conflict for 1.5 s (at least 3 attempts,
  // ~10 in that time), so an order fails only after ~10 conflicts in a row: 0.3^10, about 6e-6.
  stack = await startStack({ engine: { conflictChance: 0.3, conflictSeed: 3 } });
  await loadCatalog(stack);
});
afterAll(async () => {
  await stack?.close();
});

const { createCustomer, placeOrder, itemsUnder } = writeHelpers(() => stack);
const ORDERS = 50;

describe('placeOrder under transaction conflicts (conflictChance 0.3)', () => {
  it('every order is placed once; each conflicted transaction was retried', async () => {
    const customer = await createCustomer('Busy');
    const before = stack.engine.conflicts().forced;
    const sentBefore = stack.engine.wire.count('TransactWriteItems');
    const orders = [];
    for (let i = 0; i < ORDERS; i++) orders.push(await placeOrder(customer.id, `busy-${i}`));

    const forced = stack.engine.conflicts().forced - before;
    const sent = stack.engine.wire.count('TransactWriteItems') - sentBefore;
    const cancelled = stack.engine.wire
      .requests()
      .filter((r) => r.operation === 'TransactWriteItems' && r.errorType === 'TransactionCanceledException').length;
    console.log(`[conflicts] ${ORDERS} orders: ${forced} TransactionConflict cancellations, all retried (${sent} TransactWriteItems sent)`);

    expect(new Set(orders.map((order) => order.id)).size).toBe(ORDERS);
    expect(forced).toBeGreaterThan(5); // the retry path really ran
    expect(sent).toBe(ORDERS + forced); // one retry per conflict, nothing more
    expect(cancelled).toBeGreaterThanOrEqual(forced);
    const headers = (await itemsUnder(`CUSTOMER#${customer.id}`)).filter((item) => String(item.SK).startsWith('ORDER#'));
    expect(headers).toHaveLength(ORDERS);
  });
});
