/**
 * The transactional outbox: every mutation adds ONE event item (entity/event.ts) to the
 * TransactWriteItems that changes its data, so a cancelled transaction emits nothing and a
 * committed one exactly its event. The table's stream carries the item to the relay (src/relay).
 *
 * Sequences are dense per aggregate (1, 2, 3, …). The aggregate's current sequence lives on its
 * root item as `eventSeq` (the customer profile, the order header, the product; absent = 0, as on
 * items written before the outbox or by the bulk seed), and the same transaction sets it to the
 * event's sequence on the condition that it still holds the value the writer read. So two writers
 * of one aggregate can never commit one sequence twice: the second one's condition fails, its
 * transaction is cancelled whole, and it learns the current value from the cancellation's ALL_OLD
 * image of the root (no read of its own) and tries again with the next sequence. The event's own
 * Put is conditioned on `attribute_not_exists(PK)` as well, a second lock on the same invariant.
 *
 * Aggregates: Customer (CustomerCreated, CustomerUpdated, AddressPut, AddressRemoved: the writes
 * that change the profile anyway), Order (OrderPlaced, sequence 1, written with the header that
 * holds it, then each OrderStatusChanged) and Product (ProductPut). An order is its own aggregate
 * so that no item is written by every order of one customer: a sequence lives only on an item its
 * writes already change. Orders placed before that design have their OrderPlaced in the customer's
 * aggregate, and their status changes start at 1. The model never sees a token: callers pass the
 * `EventActor` (resolvers map their principal; internal writers pass SYSTEM_ACTOR).
 */
import type { Item, TransactAction } from '../dynamo/table';
import { newId, nowIso } from './keys';
import { eventEntity, eventToItem, MAX_SEQUENCE } from './entity/event';
import type { AggregateType, EventActor, EventType, OutboxEvent } from './events';

export { AGGREGATE_TYPES, EVENT_TTL_SECONDS, eventEntity, eventExpiresAt, eventFromItem, eventToItem, MAX_SEQUENCE } from './entity/event';

/** The actor of internal writers: demo data, seed, migrations. */
export const SYSTEM_ACTOR: EventActor = Object.freeze({ kind: 'system' });

/** The root item's attribute holding its aggregate's current sequence. */
export const EVENT_SEQ = 'eventSeq';

/** The keys of an aggregate's events. */
export const eventKeys = {
  pk: (aggregateType: AggregateType, aggregateId: string) => eventEntity.templates.PK.build({ aggregateType, aggregateId }),
  key: (aggregateType: AggregateType, aggregateId: string, sequence: number) => eventEntity.key({ aggregateType, aggregateId, sequence }),
};

/** The current sequence a root item holds (0 when it has none: no event yet). */
export function sequenceOf(root: Item | undefined): number {
  const value = root?.[EVENT_SEQ];
  return typeof value === 'number' ? value : 0;
}

/**
 * The condition that the root still holds sequence `was` and the assignment of the next one, to be
 * joined into the root's own Update (its other clauses and placeholders are the caller's). `was`
 * 0 means the root has never had an event: no `eventSeq` at all.
 */
export function sequenceStep(was: number): { condition: string; set: string; values: Record<string, unknown> } {
  if (was >= MAX_SEQUENCE) throw new Error(`an aggregate holds at most ${MAX_SEQUENCE} events`);
  return {
    condition: was === 0 ? `attribute_not_exists(${EVENT_SEQ})` : `${EVENT_SEQ} = :seqWas`,
    set: `${EVENT_SEQ} = :seq`,
    values: was === 0 ? { ':seq': 1 } : { ':seq': was + 1, ':seqWas': was },
  };
}

/** What a mutation knows of its event; the outbox adds its id, sequence, time and actor. */
export interface EventDraft {
  eventType: EventType;
  aggregateType: AggregateType;
  aggregateId: string;
  customerId?: string | undefined;
  payload: Record<string, unknown>;
}

/** The complete event of a draft at `sequence`. */
export function outboxEvent(draft: EventDraft, sequence: number, actor: EventActor, occurredAt = nowIso()): OutboxEvent {
  return {
    eventId: newId(),
    eventType: draft.eventType,
    aggregateType: draft.aggregateType,
    aggregateId: draft.aggregateId,
    sequence,
    ...(draft.customerId === undefined ? {} : { customerId: draft.customerId }),
    // JSON-safe, without undefined members (DynamoDB cannot store them; subscribers see absent fields).
    payload: Object.fromEntries(Object.entries(draft.payload).filter(([, value]) => value !== undefined)),
    occurredAt,
    actor: actorOf(actor),
  };
}

/** The transaction action that writes an event: a Put that never overwrites one. */
export function eventPut(event: OutboxEvent): TransactAction {
  return { Put: { Item: eventToItem(event), ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** A plain copy of the actor (never a principal object with a token in it). */
function actorOf(actor: EventActor): EventActor {
  if (actor.kind === 'system') return { kind: 'system' };
  if (typeof actor.subject !== 'string' || actor.subject === '') throw new Error(`a ${actor.kind} actor needs its subject`);
  return { kind: actor.kind, subject: actor.subject };
}
