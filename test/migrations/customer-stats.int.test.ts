/**
 * Migration 0003: Customer.stats counted from the order summaries, for customers whose orders were
 * written without an OrderPlaced event (from before the outbox), so the relay never counted them.
 * After it, the relay's counting goes on from the count: an order in the count is never counted
 * again, an order with its event (`statsPending`) is counted once, whenever the relay meets it.
 * Each test starts its own stack, so counts are exact.
 */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/dynamo/table';
import { runMigration } from '../../src/ops/migrations';
import { migration as m0003 } from '../../src/ops/migrations/0003-customer-stats';
import { countPlacedOrders, eventFromItem, placedOrderOf, statsOf, type OutboxEvent } from '../../src/model';
import { dataOf } from '../support/graphql';
import { createCustomer, loadLegacy, placeOrder, useFreshStacks } from '../support/migrations';
import type { Stack } from '../support/stack';

const freshStack = useFreshStacks();
const STATS = 'query($id: ID!) { customer(id: $id) { stats { orderCount lifetimeCents asOf } } }';

const statsOfCustomer = async (stack: Stack, id: string) => dataOf(await stack.gql(STATS, { id })).customer.stats;
const profileOf = async (stack: Stack, id: string) =>
  (await stack.items()).find((item) => item.PK === `CUSTOMER#${id}` && item.SK === 'PROFILE')!;
/** The customer's OrderPlaced events (each its order's own), oldest first, as the relay would receive them. */
const orderPlacedEvents = async (stack: Stack, id: string): Promise<OutboxEvent[]> =>
  (await stack.items())
    .filter((item: Item) => item.type === 'EVENT' && item.customerId === id && item.eventType === 'OrderPlaced')
    .map(eventFromItem)
    .sort((a, b) => a.eventId.localeCompare(b.eventId));
/** What the relay does with these events: counts them on their customer. */
const relayCounts = (stack: Stack, id: string, events: OutboxEvent[]) =>
  countPlacedOrders(
    stack.table,
    id,
    events.map((e) => placedOrderOf(e)!),
  );

describe('migration 0003: Customer.stats from the order summaries', () => {
  it('counts the orders no event counted, and the relay then counts each order that has its event once', async () => {
    const stack = await freshStack();
    const [legacy, other] = await loadLegacy(stack, 2, 5);
    const id = legacy!.customer.id;
    expect(await statsOfCustomer(stack, id)).toEqual({ orderCount: 0, lifetimeCents: 0, asOf: null }); // none counted

    // One order placed through the API before the migration: its event is in the outbox, not yet relayed.
    const late = await placeOrder(stack, id, '2026-11-02T10:00:00.000Z', ['MUG-001']);
    const report = await runMigration(stack.table, m0003);
    expect(report).toMatchObject({ outcome: 'applied', run: { selected: 2, updated: 2, skipped: 0, unresolved: 0 } });

    // The count leaves the pending order to the relay.
    expect(await statsOfCustomer(stack, id)).toEqual(statsOf(legacy!.orders));
    expect(await statsOfCustomer(stack, other!.customer.id)).toEqual(statsOf(other!.orders));
    const profile = await profileOf(stack, id);
    expect(profile).toMatchObject({ statsSeq: 0, orderCount: 5 });
    expect(profile.eventSeq).toBeUndefined(); // an order writes no item of its customer
    expect(typeof profile.statsBaseline).toBe('string');

    // The relay reaches the late order's event after the count: counted once, and a redelivery not again.
    const [placed] = await orderPlacedEvents(stack, id);
    expect(await relayCounts(stack, id, [placed!])).toEqual({ applied: 1, duplicates: 0 });
    const all = [...legacy!.orders, late];
    // (asOf: the relay's is the event's commit instant; a count's, the newest placedAt it counted.)
    expect(await statsOfCustomer(stack, id)).toEqual({ ...statsOf(all), asOf: placed!.occurredAt });
    expect(await relayCounts(stack, id, [placed!])).toEqual({ applied: 0, duplicates: 1 });

    // An order placed after the count is the relay's to count, in one transaction with a redelivered one.
    const next = await placeOrder(stack, id, '2026-11-03T10:00:00.000Z', ['MUG-002']);
    const events = await orderPlacedEvents(stack, id);
    expect(events).toHaveLength(2);
    expect(await relayCounts(stack, id, events)).toEqual({ applied: 1, duplicates: 1 });
    expect(await statsOfCustomer(stack, id)).toEqual({ ...statsOf([...all, next]), asOf: events.at(-1)!.occurredAt });

    // Run again: applied already; forced, it finds nothing to count (every profile has its baseline).
    expect((await runMigration(stack.table, m0003)).outcome).toBe('already applied');
    expect((await runMigration(stack.table, m0003, { force: true })).run).toMatchObject({ selected: 0, updated: 0 });
  });

  it('leaves customers created through the API alone: their baseline is their creation', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    await placeOrder(stack, ana.id, '2026-11-02T10:00:00.000Z', ['MUG-001']);
    expect((await profileOf(stack, ana.id)).statsBaseline).toEqual(expect.any(String));
    const report = await runMigration(stack.table, m0003, { dryRun: true });
    expect(report.run).toMatchObject({ selected: 0 });
  });

  it('skips a profile whose order the relay counted between the scan and the rewrite, and counts it when run again', async () => {
    const stack = await freshStack();
    const [legacy] = await loadLegacy(stack, 1, 3);
    const id = legacy!.customer.id;
    // The run as it is, but after the page was scanned and prepared an order is placed and the relay counts it: orderCount moves on.
    let late: Awaited<ReturnType<typeof placeOrder>> | undefined;
    const racing = {
      ...m0003,
      async prepare(table: Parameters<typeof m0003.prepare>[0], profiles: Parameters<typeof m0003.prepare>[1]) {
        const context = await m0003.prepare(table, profiles);
        if (!late) {
          late = await placeOrder(stack, id, '2026-11-02T10:00:00.000Z', ['MUG-001']);
          expect(await relayCounts(stack, id, await orderPlacedEvents(stack, id))).toEqual({ applied: 1, duplicates: 0 });
        }
        return context;
      },
    };
    const report = await runMigration(stack.table, racing);
    expect(report.run).toMatchObject({ selected: 1, updated: 0, skipped: 1 });
    expect((await profileOf(stack, id)).statsBaseline).toBeUndefined(); // left as the relay keeps it

    const again = await runMigration(stack.table, m0003, { force: true });
    expect(again.run).toMatchObject({ selected: 1, updated: 1, skipped: 0 });
    expect(await statsOfCustomer(stack, id)).toEqual(statsOf([...legacy!.orders, late!]));
  });
});
