/**
 * The relay's core, the same for the local relay (src/relay/relay.ts) and Lambda
 * (src/entry/lambda-relay.ts): from stream records, in order, to published events and the customer
 * aggregate (src/model/customer-stats.ts).
 *
 * - `decodeRecord` keeps outbox records only: an INSERT whose new image is of type `EVENT`
 *   (anything else, including the TTL deletion of an event item, is skipped), decoded by the event
 *   entity's codec (`eventFromItem`). An image that does not decode is a poison record.
 * - `deliverRecords` publishes the outbox events of a batch, then applies each OrderPlaced to its
 *   customer's stats, and says how far the batch got: the last record fully handled (everything
 *   up to it is published and counted: the checkpoint may move there) and the first that failed,
 *   if any. Records after a failure may have been published too: they will be again
 *   (at-least-once; consumers de-duplicate on `eventId`, the stats on the customer's sequence).
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Table } from '../dynamo/table';
import type { OutboxEvent } from '../model/events';
import { eventFromItem } from '../model/entity/event';
import { applyLegacyOrderPlaced, countPlacedOrders, placedOrderOf, type PlacedOrder } from '../model/customer-stats';
import type { Publisher } from './publishers';

/**
 * A stream record as both sources shape it: `@aws-sdk/client-dynamodb-streams`' `_Record` and
 * aws-lambda's `DynamoDBRecord` (images in DynamoDB JSON).
 */
export interface StreamRecordLike {
  eventName?: string | undefined;
  dynamodb?:
    | {
        SequenceNumber?: string | undefined;
        Keys?: Record<string, unknown> | undefined;
        NewImage?: Record<string, unknown> | undefined;
      }
    | undefined;
}

export type Decoded = { kind: 'skip' } | { kind: 'event'; event: OutboxEvent } | { kind: 'poison'; error: string };

/** An outbox record's event; `skip` for every other record; `poison` for an outbox record that does not decode. */
export function decodeRecord(record: StreamRecordLike): Decoded {
  if (record.eventName !== 'INSERT') return { kind: 'skip' };
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (!image || (image.type as { S?: string } | undefined)?.S !== 'EVENT') return { kind: 'skip' };
  try {
    return { kind: 'event', event: eventFromItem(unmarshall(image)) };
  } catch (error) {
    return { kind: 'poison', error: errorText(error) };
  }
}

export function sequenceOf(record: StreamRecordLike): string {
  const sequence = record.dynamodb?.SequenceNumber;
  if (!sequence) throw new Error('a stream record without a SequenceNumber');
  return sequence;
}

export interface DeliveryFailure {
  /** Its position in the batch. */
  index: number;
  sequenceNumber: string;
  error: string;
  /** It will never decode: retrying cannot help. */
  poison: boolean;
}

export interface DeliveryResult {
  /** Records fully handled, from the start of the batch (published and counted, or skipped). */
  handled: number;
  /** The sequence number of the last of them. */
  lastSequenceNumber: string | undefined;
  /** The events of those records, in order. */
  published: OutboxEvent[];
  /** Stats updates: counted, and recognised as already counted. */
  statsApplied: number;
  statsDuplicates: number;
  failure: DeliveryFailure | undefined;
}

export interface DeliveryOptions {
  publisher: Publisher;
  /** Where the customer stats are kept; undefined: not kept by this relay. */
  statsTable: Table | undefined;
}

/** Delivers a batch of records (one shard's, in order); see the module comment. */
export async function deliverRecords(records: readonly StreamRecordLike[], options: DeliveryOptions): Promise<DeliveryResult> {
  const decoded = records.map(decodeRecord);
  const poisonAt = decoded.findIndex((d) => d.kind === 'poison');
  const end = poisonAt === -1 ? records.length : poisonAt;
  const events: Array<{ index: number; event: OutboxEvent }> = [];
  for (let index = 0; index < end; index++) {
    const d = decoded[index]!;
    if (d.kind === 'event') events.push({ index, event: d.event });
  }

  let failure: DeliveryFailure | undefined;
  if (events.length > 0) {
    let failed: Map<string, string>;
    try {
      failed = new Map((await options.publisher.publish(events.map(({ event }) => event))).map((f) => [f.eventId, f.error]));
    } catch (error) {
      failed = new Map(events.map(({ event }) => [event.eventId, errorText(error)]));
    }
    const first = events.find(({ event }) => failed.has(event.eventId));
    if (first) failure = failureAt(records, first.index, failed.get(first.event.eventId)!, false);
  }

  // The stats of the published prefix, customers side by side (their writes touch different
  // items): each customer's orders of the batch counted in one transaction (customer-stats.ts),
  // legacy events in order. The first failure stops the batch at its earliest record.
  let statsApplied = 0;
  let statsDuplicates = 0;
  const limit = failure?.index ?? end;
  if (options.statsTable) {
    const table = options.statsTable;
    const groups = new Map<string, StatsGroup>();
    for (const { index, event } of events) {
      if (index >= limit || event.eventType !== 'OrderPlaced') continue;
      let placed;
      try {
        placed = placedOrderOf(event);
      } catch (error) {
        failure = failureAt(records, index, `stats: ${errorText(error)}`, true);
        break;
      }
      const customerId = placed?.customerId ?? event.aggregateId;
      const group = groups.get(customerId) ?? { customerId, first: index, orders: [], legacy: [] };
      if (placed) group.orders.push(placed);
      else group.legacy.push(event);
      groups.set(customerId, group);
    }
    let statsFailure: DeliveryFailure | undefined;
    await inParallel([...groups.values()], STATS_CONCURRENCY, async (group) => {
      try {
        for (const event of group.legacy) {
          if ((await applyLegacyOrderPlaced(table, event)) === 'applied') statsApplied++;
          else statsDuplicates++;
        }
        if (group.orders.length > 0) {
          const counted = await countPlacedOrders(table, group.customerId, group.orders);
          statsApplied += counted.applied;
          statsDuplicates += counted.duplicates;
        }
      } catch (error) {
        if (!statsFailure || group.first < statsFailure.index)
          statsFailure = failureAt(records, group.first, `stats: ${errorText(error)}`, false);
      }
    });
    if (statsFailure && (!failure || statsFailure.index < failure.index)) failure = statsFailure;
  }
  if (!failure && poisonAt !== -1) {
    const d = decoded[poisonAt] as { kind: 'poison'; error: string };
    failure = failureAt(records, poisonAt, d.error, true);
  }
  const handled = failure?.index ?? records.length;
  return {
    handled,
    lastSequenceNumber: handled > 0 ? sequenceOf(records[handled - 1]!) : undefined,
    published: events.filter(({ index }) => index < handled).map(({ event }) => event),
    statsApplied,
    statsDuplicates,
    failure,
  };
}

/** One customer's OrderPlaced events of a batch; `first` is the position of the earliest. */
interface StatsGroup {
  customerId: string;
  first: number;
  orders: PlacedOrder[];
  legacy: OutboxEvent[];
}

/** Customers whose stats are updated at once. */
const STATS_CONCURRENCY = 16;

async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

function failureAt(records: readonly StreamRecordLike[], index: number, error: string, poison: boolean): DeliveryFailure {
  return { index, sequenceNumber: sequenceOf(records[index]!), error, poison };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}
