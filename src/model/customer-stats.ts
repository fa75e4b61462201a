/**
 * `Customer.stats`: per customer, how many orders were placed and their lifetime total in cents,
 * kept by hand from the table's stream (the pattern card: "no GROUP BY: keep aggregates by hand
 * with Streams"). The relay (src/relay/deliver.ts, locally and on Lambda) counts each
 * `OrderPlaced` it publishes on the customer's profile item, so the customer screen reads the
 * figures with the profile it already reads: no extra request.
 *
 * **No hot item on the order path.** `OrderPlaced` is an event of the order's own aggregate
 * (sequence 1 of `EVENT#Order#<orderId>`), and placeOrder's transaction writes only items that are
 * new to it (src/model/place-order.ts): one customer's concurrent orders share no item, so they
 * never conflict. The profile is written by the relay alone, once per customer per stream batch
 * (`countPlacedOrders`), however many of its orders the batch holds.
 *
 * **Exactly once, per order.** placeOrder writes the order's summary with `statsPending`; counting
 * is one transaction per customer (≤ 99 orders): `ADD orderCount :n, lifetimeCents :cents` on the
 * profile and `REMOVE statsPending` on each summary, conditioned on it still being there. An order
 * counted already (a redelivery: the relay restarted before its checkpoint, Lambda retried a
 * batch) fails its summary's condition; the transaction is cancelled whole, and sent again without
 * it. Every event is delivered at least once and counted at most once, in any order: the count
 * does not assume that events of different orders arrive in commit order (they do not: different
 * partition keys, different stream shards).
 *
 * **Before this design** (events written until the order became its own aggregate): OrderPlaced was
 * an event of the customer's aggregate, its summary has no `statsPending`, and its count is guarded
 * by the customer's sequence (`statsSeq`, `applyLegacyOrderPlaced`). Such events may still be in
 * the stream (24 hours) when a deployment switches; they are counted by their own guard, and the
 * new path never counts their orders.
 *
 * The figures are eventually consistent: they lag the order by the relay's delay. Cancelled orders
 * still count (the aggregate is of orders placed). `asOf` is the newest `occurredAt` of the batch
 * that counted last, so it may step back by the spread of one batch's stream shards.
 */
import type { Item, Table, TransactAction } from '../dynamo/table';
import { customerEntity, type CustomerStats } from './entity/customer';
import { orderSummaryEntity } from './entity/order';
import type { OutboxEvent } from './events';
import { writeTransaction, writeUpdate } from './guards';
import { cancellationReasons, failedCondition, isConditionalCheckFailed } from './transactions';

export type { CustomerStats } from './entity/customer';

/** The figures of a customer none of whose orders has been counted yet. */
export const NO_STATS: CustomerStats = { orderCount: 0, lifetimeCents: 0, asOf: null };

/** The summary attribute of an order not counted yet: placeOrder sets it, counting removes it. */
export const STATS_PENDING = 'statsPending';

/** The attributes the relay writes (its IAM role allows these alone, template.yaml): the profile's figures and the summaries' mark. */
export const STATS_ATTRIBUTES = ['orderCount', 'lifetimeCents', 'statsSeq', 'statsAsOf', STATS_PENDING] as const;

/**
 * The instant from which OrderPlaced events complete a profile's figures: the customer's creation
 * (`createCustomer` writes it: every order of such a customer has its event), or the moment every
 * order before it was counted from the summaries (`countedStats`: the bulk seed, migration 0003 for
 * customers from before the outbox). A profile without it may have orders the figures miss.
 */
export const STATS_BASELINE = 'statsBaseline';

/** An order summary as placeOrder writes it: not counted yet. */
export function pendingStats(summary: Item): Item {
  return { ...summary, [STATS_PENDING]: true };
}

/** Orders counted in one transaction: its 100 actions less the profile's. */
export const ORDERS_PER_COUNT = 99;

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
 * The profile attributes that state `stats`, counted from the order summaries that are not pending
 * while the customer's event sequence was `seq` (`eventSeq`, 0 when it has none): `statsSeq = seq`,
 * so legacy OrderPlaced events up to `seq`, whose orders are in the count, are never counted again,
 * and pending orders are counted when their events are. `at`, when it was counted, is the baseline.
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

/** What counting needs of one placed order (an OrderPlaced event of the order's aggregate, or its summary). */
export interface PlacedOrder {
  customerId: string;
  orderId: string;
  placedAt: string;
  totalCents: number;
  occurredAt: string;
}

/** The order an OrderPlaced event of the order's aggregate counts; undefined for any other event. Throws on a malformed one. */
export function placedOrderOf(event: OutboxEvent): PlacedOrder | undefined {
  if (event.eventType !== 'OrderPlaced' || event.aggregateType !== 'Order') return undefined;
  const { totalCents, placedAt } = event.payload;
  if (typeof totalCents !== 'number' || !Number.isInteger(totalCents))
    throw new Error(`OrderPlaced ${event.eventId} has no integer totalCents`);
  if (typeof placedAt !== 'string' || event.customerId === undefined)
    throw new Error(`OrderPlaced ${event.eventId} lacks placedAt or customerId`);
  return { customerId: event.customerId, orderId: event.aggregateId, placedAt, totalCents, occurredAt: event.occurredAt };
}

/** The transaction that counts `orders` (one customer's, ≤ ORDERS_PER_COUNT) on its profile. */
export function countActions(customerId: string, orders: readonly PlacedOrder[]): TransactAction[] {
  if (orders.length === 0 || orders.length > ORDERS_PER_COUNT) throw new Error(`count 1 to ${ORDERS_PER_COUNT} orders at once`);
  const asOf = orders.reduce((newest, order) => (order.occurredAt > newest ? order.occurredAt : newest), orders[0]!.occurredAt);
  return [
    {
      Update: {
        Key: customerEntity.key({ id: customerId }),
        UpdateExpression: 'ADD orderCount :n, lifetimeCents :cents SET statsAsOf = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':n': orders.length, ':cents': orders.reduce((sum, o) => sum + o.totalCents, 0), ':at': asOf },
      },
    },
    ...orders.map((order): TransactAction => ({
      Update: {
        Key: orderSummaryEntity.key({ customerId, placedAt: order.placedAt, id: order.orderId }),
        UpdateExpression: `REMOVE ${STATS_PENDING}`,
        ConditionExpression: `attribute_exists(${STATS_PENDING})`,
      },
    })),
  ];
}

/**
 * Counts one customer's placed orders (any number, in transactions of ≤ ORDERS_PER_COUNT):
 * `applied` orders counted now, `duplicates` counted before (or whose customer has no profile:
 * nothing to count on). A transaction conflict is retried by `writeTransaction`; anything else
 * throws (the relay retries the records).
 */
export async function countPlacedOrders(
  table: Table,
  customerId: string,
  orders: readonly PlacedOrder[],
): Promise<{ applied: number; duplicates: number }> {
  const unique = [...new Map(orders.map((order) => [order.orderId, order])).values()];
  let applied = 0;
  let duplicates = orders.length - unique.length;
  for (let start = 0; start < unique.length; start += ORDERS_PER_COUNT) {
    let chunk = unique.slice(start, start + ORDERS_PER_COUNT);
    while (chunk.length > 0) {
      try {
        await writeTransaction(table, countActions(customerId, chunk));
        applied += chunk.length;
        break;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (failedCondition(reasons[0])) {
          duplicates += chunk.length; // no profile: nothing to count on
          break;
        }
        const counted = chunk.filter((_, index) => failedCondition(reasons[index + 1]));
        if (counted.length === 0) throw error;
        duplicates += counted.length;
        chunk = chunk.filter((_, index) => !failedCondition(reasons[index + 1]));
      }
    }
  }
  return { applied, duplicates };
}

/** The UpdateItem that counts a legacy OrderPlaced (the customer aggregate's), or undefined for any other event. */
export function legacyOrderPlacedUpdate(event: OutboxEvent) {
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
 * Counts one legacy OrderPlaced event (see the file comment): `applied`, or `duplicate` when the
 * profile already holds this event or a later one of the customer (or there is no profile). Its
 * guard is "newer than the last applied": such events are items of one partition key
 * (`EVENT#Customer#<id>`), whose stream records come in commit order.
 */
export async function applyLegacyOrderPlaced(table: Table, event: OutboxEvent): Promise<'applied' | 'duplicate'> {
  const update = legacyOrderPlacedUpdate(event);
  if (!update) throw new Error(`event ${event.eventId} is not a legacy OrderPlaced`);
  try {
    await writeUpdate(table, update);
    return 'applied';
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'duplicate';
    throw error;
  }
}
