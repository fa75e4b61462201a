/**
 * Adversarial data for the read-bound suites (the cost estimate, the access patterns' declared
 * bounds): the shapes that make reads longest.
 * - `big`: 2,000 PAID orders of one customer at the 10-address cap; the newest 300 all on shard 0
 *   of the status index, so pages read that shard again.
 * - `repeat`: 105 orders repeating one SKU (`REPEAT_SKU`) on every one of their 96 lines (MAX_STORED_LINES:
 *   orders placed before the outbox event took an action hold that many; new ones at most 95).
 * - `mixed`: orders alternating 96 lines and 1 line of another SKU (`MIXED_SKU`), which defeats the
 *   SKU index's guess of lines per order.
 */
import { DEFAULT_WRITE_SHARDS, MAX_STORED_LINES, newId, shardOf } from '../../src/model';
import { buildCustomer, type CustomerFixture } from './fixtures';

export const REPEAT_SKU = 'REPEAT-96';
export const MIXED_SKU = 'MIXED-1-96';

export function buildAdversarialCustomers(): { big: CustomerFixture; repeat: CustomerFixture; mixed: CustomerFixture } {
  const big = buildCustomer({ addresses: 10, orders: 2000, spacingMinutes: 30, status: () => 'PAID', lines: () => 1 });
  for (const order of big.orders.slice(0, 300)) order.id = idOnShard(0);
  const repeat = withSku(buildCustomer({ addresses: 10, orders: 105, spacingMinutes: 7, lines: () => MAX_STORED_LINES }), REPEAT_SKU);
  const mixed = withSku(
    buildCustomer({ addresses: 3, orders: 120, spacingMinutes: 11, lines: (n) => (n % 2 === 0 ? MAX_STORED_LINES : 1) }),
    MIXED_SKU,
  );
  return { big, repeat, mixed };
}

function withSku(fixture: CustomerFixture, sku: string): CustomerFixture {
  for (const order of fixture.orders) for (const line of order.lines) line.sku = sku;
  return fixture;
}

/** An order id that lands on `shard` of the status index. */
export function idOnShard(shard: number): string {
  for (;;) {
    const id = newId();
    if (shardOf(id, DEFAULT_WRITE_SHARDS) === shard) return id;
  }
}
