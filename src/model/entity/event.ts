/**
 * Outbox event: keys, lifecycle and codec, declared once. Operations: src/model/outbox.ts (the
 * event action each mutation adds to its own transaction); the contract is src/model/events.ts.
 *
 * PK = EVENT#<aggregateType>#<aggregateId>, SK = SEQ#<sequence, 10 digits>: an aggregate's events
 * are one item collection in sequence order, away from every collection the API reads (a customer
 * screen's Query on CUSTOMER#<id> never meets them). The sequence in the key makes "two events with
 * one sequence" impossible to store: the Put is conditioned on `attribute_not_exists(PK)`.
 *
 * Lifecycle: the second entity allowed the TTL attribute (`expiresAt`, epoch seconds), 7 days after
 * it occurred. The table's stream is the outbox's delivery channel (the relay reads NEW_IMAGEs of
 * these items); the items themselves are kept only long enough to look at or replay by hand, so
 * their partitions never grow without bound.
 */
import type { Item } from '../../dynamo/table';
import { TTL_ATTRIBUTE } from '../../dynamo/definition';
import { defineEntity } from '../declare';
import { EVENT_TYPES, type AggregateType, type EventActor, type EventType, type OutboxEvent } from '../events';
import { str, num } from '../keys';
import { digits, keyText, SKU_MAX } from './parts';

export const AGGREGATE_TYPES: readonly AggregateType[] = ['Customer', 'Order', 'Product'];
/** How long an event item is kept: short retention (the stream keeps records 24 hours; this leaves days to look). */
export const EVENT_TTL_SECONDS = 7 * 24 * 60 * 60;
/** The largest sequence the key holds (10 digits). */
export const MAX_SEQUENCE = 9_999_999_999;

export const eventEntity = defineEntity({
  name: 'Outbox event',
  type: 'EVENT',
  parts: {
    aggregateType: { shape: AGGREGATE_TYPES.join('|') },
    // A customer or order id (a ULID) or a SKU: text without the separator, at most a SKU long.
    aggregateId: { shape: keyText(SKU_MAX) },
    sequence: digits(10, 'sequence, 10 digits'),
  },
  table: { PK: 'EVENT#{aggregateType}#{aggregateId}', SK: 'SEQ#{sequence}' },
  expires: true,
  codec: { toItem: eventToItem, fromItem: eventFromItem },
});

/** When an event's item expires: `occurredAt` plus EVENT_TTL_SECONDS, epoch seconds. */
export function eventExpiresAt(occurredAt: string): number {
  return Math.floor(Date.parse(occurredAt) / 1000) + EVENT_TTL_SECONDS;
}

/** The item of an event (attributes absent from the event, such as a product's customerId, are left out). */
export function eventToItem(event: OutboxEvent): Item {
  return {
    ...eventEntity.itemKeys({ aggregateType: event.aggregateType, aggregateId: event.aggregateId, sequence: event.sequence }),
    eventId: event.eventId,
    eventType: event.eventType,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    sequence: event.sequence,
    ...(event.customerId === undefined ? {} : { customerId: event.customerId }),
    payload: event.payload,
    occurredAt: event.occurredAt,
    actor: event.actor.subject === undefined ? { kind: event.actor.kind } : { kind: event.actor.kind, subject: event.actor.subject },
    [TTL_ATTRIBUTE]: eventExpiresAt(event.occurredAt),
  };
}

/**
 * The event an item holds: a stored item, or a stream record's image (unmarshalled). Throws on an
 * item that is not a well-formed event (a bug or foreign data: the relay sends it to its
 * dead-letter place rather than publishing it).
 */
export function eventFromItem(item: Item): OutboxEvent {
  if (!eventEntity.matches(item)) throw new Error(`item ${String(item.PK)}/${String(item.SK)} is not an outbox event`);
  const eventType = str(item, 'eventType');
  if (!(EVENT_TYPES as readonly string[]).includes(eventType))
    throw new Error(`item ${String(item.PK)} has an unknown eventType ${eventType}`);
  const aggregateType = str(item, 'aggregateType');
  if (!(AGGREGATE_TYPES as readonly string[]).includes(aggregateType))
    throw new Error(`item ${String(item.PK)} has an unknown aggregateType ${aggregateType}`);
  const payload = item.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new Error(`item ${String(item.PK)} lacks its payload`);
  const actor = item.actor as Partial<EventActor> | undefined;
  if (!actor || (actor.kind !== 'customer' && actor.kind !== 'staff' && actor.kind !== 'system'))
    throw new Error(`item ${String(item.PK)} lacks its actor`);
  const customerId = item.customerId;
  return {
    eventId: str(item, 'eventId'),
    eventType: eventType as EventType,
    aggregateType: aggregateType as AggregateType,
    aggregateId: str(item, 'aggregateId'),
    sequence: num(item, 'sequence'),
    ...(typeof customerId === 'string' ? { customerId } : {}),
    payload: payload as Record<string, unknown>,
    occurredAt: str(item, 'occurredAt'),
    actor: typeof actor.subject === 'string' ? { kind: actor.kind, subject: actor.subject } : { kind: actor.kind },
  };
}
