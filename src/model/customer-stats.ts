/**
 * `Customer.stats`: per customer, how many orders were placed and their lifetime total in cents,
 * kept by hand from the table's stream (the pattern card: "no GROUP BY: keep aggregates by hand
 * with Streams"). The relay (src/events/relay.ts, src/lambda-relay.ts) applies each `OrderPlaced`
 * event it publishes to the customer's profile item, so the customer screen reads the figures with
 * the profile it already reads: no extra request.
 *
 * **Write** (`applyOrderPlaced`): one conditional UpdateItem of the profile,
 *
 *   ADD orderCount :one, lifetimeCents :total SET statsSeq = :seq, statsAsOf = :at
 *   IF attribute_exists(PK) AND (attribute_not_exists(statsSeq) OR statsSeq < :seq)
 *
 * where `:seq` is the event's sequence in the Customer aggregate (dense per customer: OrderPlaced
 * belongs to the customer's aggregate, src/model/events.ts). A redelivered event (at-least-once:
 * the relay restarted before its checkpoint, Lambda retried a batch) fails the condition and
 * counts nothing: an event is counted at most once, and every event is delivered at least once,
 * so exactly once.
 *
 * **What it assumes about order**: a customer's events are delivered in their commit order. They
 * are all items of one partition key (`EVENT#Customer#<id>`), whose stream records DynamoDB
 * Streams keeps in one shard at a time, in commit order; the relay reads a shard in order and a
 * child shard only after its parent (Lambda's event source mapping does the same per partition
 * key). An event arriving after a later one of the same customer was applied would be skipped as
 * "already applied": the guard is "newer than the last applied", not "the next one".
 *
 * The figures are eventually consistent: they lag the order by the relay's delay (README,
 * "Events": measured locally). Cancelled orders still count (the aggregate is of orders placed).
 */
import type { Table } from '../dynamo/table';
import { customerEntity, type CustomerStats } from './entity/customer';
import type { OutboxEvent } from './events';
import { writeUpdate } from './guards';
import { isConditionalCheckFailed } from './transactions';
import { backoffMs, sleep } from '../dynamo/backoff';

export type { CustomerStats } from './entity/customer';

/** The figures of a customer none of whose orders has been counted yet. */
export const NO_STATS: CustomerStats = { orderCount: 0, lifetimeCents: 0, asOf: null };

/** The attributes the relay writes on the profile item (its IAM role allows these alone, template.yaml). */
export const STATS_ATTRIBUTES = ['orderCount', 'lifetimeCents', 'statsSeq', 'statsAsOf'] as const;

/**
 * The instant from which OrderPlaced events complete a profile's figures: the customer's creation
 * (`createCustomer` writes it: every order of such a customer has its event), or the moment every
 * order before it was counted from the summaries (`countedStats`: the bulk seed, migration 0003 for
 * customers from before the outbox). A profile without it may have orders the figures miss.
 */
export const STATS_BASELINE = 'statsBaseline';

/** The figures some orders make (placed, whatever their status now): what the relay counts, one OrderPlaced each. */
export function statsOf(orders: Iterable<{ totalCents: number; placedAt: string }>): CustomerStats {
  let orderCount = 0;
  let lifetimeCents = 0;
  let asOf: string | null = null;
  for (const order of orders) {
    orderCount += 1;
    lifetimeCents += order.totalCents;
    if (asOf === null || order.placedAt > asOf) asOf = order.placedAt;
  }
  return { orderCount, lifetimeCents, asOf };
}

/**
 * The profile attributes that state `stats`, counted from every order summary of the customer
 * while its event sequence was `seq` (`eventSeq`, 0 when it has none): `statsSeq = seq`, so the
 * OrderPlaced events up to `seq`, whose orders are in the count, are never counted again by the
 * relay, and later ones are (the condition of `applyOrderPlaced`). `at`, when it was counted, is
 * the baseline.
 */
export function countedStats(stats: CustomerStats, seq: number, at: string): Record<string, unknown> {
  return {
    orderCount: stats.orderCount,
    lifetimeCents: stats.lifetimeCents,
    statsSeq: seq,
    ...(stats.asOf === null ? {} : { statsAsOf: stats.asOf }),
    [STATS_BASELINE]: at,
  };
}

/** The UpdateItem that counts one OrderPlaced event, or undefined for any other event. */
export function orderPlacedUpdate(event: OutboxEvent) {
  if (event.eventType !== 'OrderPlaced' || event.aggregateType !== 'Customer') return undefined;
  const total = event.payload.totalCents;
  if (typeof total !== 'number' || !Number.isInteger(total)) throw new Error(`OrderPlaced ${event.eventId} has no integer totalCents`);
  return {
    Key: customerEntity.key({ id: event.aggregateId }),
    UpdateExpression: 'ADD orderCount :one, lifetimeCents :total SET statsSeq = :seq, statsAsOf = :at',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(statsSeq) OR statsSeq < :seq)',
    ExpressionAttributeValues: { ':one': 1, ':total': total, ':seq': event.sequence, ':at': event.occurredAt },
  };
}

/**
 * Counts one OrderPlaced event on its customer's profile: `applied` when it counted, `duplicate`
 * when the profile already holds this event or a later one (or there is no profile), `ignored` for
 * any other event. A transaction conflict (a transaction in flight holds the profile) is retried a
 * few times; anything else throws (the relay retries the record).
 */
export async function applyOrderPlaced(table: Table, event: OutboxEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  const update = orderPlacedUpdate(event);
  if (!update) return 'ignored';
  for (let attempt = 1; ; attempt++) {
    try {
      await writeUpdate(table, update);
      return 'applied';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'duplicate';
      // A transaction holds the profile (placeOrder's ConditionCheck, an address change): wait it out, briefly.
      if ((error as Error).name !== 'TransactionConflictException' || attempt >= CONFLICT_ATTEMPTS) throw error;
      await sleep(backoffMs(attempt));
    }
  }
}

const CONFLICT_ATTEMPTS = 4;
