/**
 * 0003: `Customer.stats` counted from the order summaries, for customers whose orders (some or all)
 * were written without an `OrderPlaced` event — data from before the outbox, or written by a tool —
 * which the relay therefore never counted (src/model/customer-stats.ts).
 *
 * Touches: customer profiles without a stats baseline (`statsBaseline`: every customer created since
 * the outbox has one, from its creation; see customer-stats.ts).
 * Rewrite: `SET orderCount, lifetimeCents, statsAsOf` from every summary of the customer that is not
 * `statsPending` (a page reads them with one consistent Query per profile, a few at a time) and
 * `statsSeq = eventSeq`, on condition that the profile has no baseline yet and that its `eventSeq`
 * and its `orderCount` are still the ones it was scanned with. So:
 * - legacy OrderPlaced events (the customer aggregate's) up to that sequence, whose orders are in the
 *   count, are never counted again by the relay (its condition is `statsSeq < :seq`);
 * - a pending order (one with its event, placed since orders are their own aggregate) is left to the
 *   relay, which counts it exactly once whenever it meets it (its summary's mark); one the relay
 *   counts between the scan and the rewrite moves `orderCount`: the condition fails, the profile is
 *   `skipped` and keeps the stats the relay keeps; `npm run migrate -- 0003 --force` counts it again;
 * - what the relay had counted of the other orders is replaced by the count, which includes them.
 */
import type { Item, Table } from '../../dynamo/table';
import {
  countedStats,
  customerEntity,
  EVENT_SEQ,
  orderKeys,
  pkOf,
  sequenceOf,
  STATS_BASELINE,
  STATS_PENDING,
  statsOf,
  type CustomerStats,
} from '../../model';
import { defineMigration } from './migration';

/** Profiles whose summaries are read at once (the others of the page wait their turn). */
const QUERY_CONCURRENCY = 8;

/** Every summary of the customer at `pk` that the relay does not count, strongly consistent, paged past 1 MB. */
async function countOrders(table: Table, pk: string): Promise<CustomerStats> {
  const { items } = await table.queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :orders)',
    ExpressionAttributeValues: { ':pk': pk, ':orders': orderKeys.summaryPrefix() },
    ProjectionExpression: `totalCents, placedAt, ${STATS_PENDING}`,
    ConsistentRead: true,
  });
  return statsOf(
    items
      .filter((summary) => summary[STATS_PENDING] === undefined)
      .map((summary) => ({ totalCents: Number(summary.totalCents), placedAt: String(summary.placedAt) })),
  );
}

export const migration = defineMigration<{ counts: Map<string, CustomerStats>; at: string }>({
  name: '0003-customer-stats',
  description: 'Customer.stats counted from the order summaries, for orders written without an OrderPlaced event',
  touches: customerEntity,

  selects: (item) => customerEntity.matches(item) && item[STATS_BASELINE] === undefined,

  async prepare(table, profiles) {
    const counts = new Map<string, CustomerStats>();
    const queue = [...profiles];
    const worker = async () => {
      for (let profile = queue.shift(); profile; profile = queue.shift())
        counts.set(pkOf(profile), await countOrders(table, pkOf(profile)));
    };
    await Promise.all(Array.from({ length: Math.min(QUERY_CONCURRENCY, queue.length) }, worker));
    return { counts, at: new Date().toISOString() };
  },

  rewrite(profile: Item, { counts, at }) {
    const stats = counts.get(pkOf(profile));
    if (!stats) return { unresolved: `profile ${pkOf(profile)} was not counted` };
    if (!Number.isInteger(stats.lifetimeCents))
      return { unresolved: `customer ${pkOf(profile)} has an order summary without an integer totalCents` };
    const seq = sequenceOf(profile);
    const count = typeof profile.orderCount === 'number' ? profile.orderCount : undefined;
    return {
      rewrite: {
        key: { PK: pkOf(profile), SK: String(profile.SK) },
        set: countedStats(stats, seq, at),
        condition: {
          expression: [
            'attribute_not_exists(#baseline)',
            seq === 0 ? 'attribute_not_exists(#seq)' : '#seq = :seq',
            count === undefined ? 'attribute_not_exists(#count)' : '#count = :count',
          ].join(' AND '),
          names: { '#seq': EVENT_SEQ, '#baseline': STATS_BASELINE, '#count': 'orderCount' },
          values: { ...(seq === 0 ? {} : { ':seq': seq }), ...(count === undefined ? {} : { ':count': count }) },
        },
      },
    };
  },
});
