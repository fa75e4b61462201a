/**
 * The outbox's events, as the rest of the system sees them: what a mutation records in its own
 * transaction (one event item per mutation, declared in entity/event.ts), what the relay reads back
 * from the table's stream and publishes, and what subscriptions deliver.
 *
 * Contract:
 * - `eventId` is unique (a ULID): consumers de-duplicate on it (delivery is at least once).
 * - `sequence` is dense per aggregate (1, 2, 3, … for one `aggregateType`/`aggregateId`), so a
 *   consumer applies an aggregate's events in order and recognises one it has already applied.
 * - `customerId` is the customer the event concerns (the order's customer for an order event; absent
 *   for a product): who may hear it is decided from it, as the access rules decide reads.
 * - `payload` is JSON-safe and holds what a subscriber needs without a read (e.g. an order's
 *   status, total and line count), never another customer's data.
 */

export const EVENT_TYPES = [
  'CustomerCreated',
  'CustomerUpdated',
  'AddressPut',
  'AddressRemoved',
  'OrderPlaced',
  'OrderStatusChanged',
  'ProductPut',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type AggregateType = 'Customer' | 'Order' | 'Product';

/** Who caused the event (the principal of the request that committed it), without its token. */
export interface EventActor {
  kind: 'customer' | 'staff' | 'system';
  /** The token's subject, for customer and staff. */
  subject?: string;
}

export interface OutboxEvent {
  eventId: string;
  eventType: EventType;
  aggregateType: AggregateType;
  aggregateId: string;
  sequence: number;
  customerId?: string;
  payload: Record<string, unknown>;
  /** ISO 8601, the commit's time as the writer saw it. */
  occurredAt: string;
  actor: EventActor;
}
