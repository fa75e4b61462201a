/**
 * The outbox event's codec and key (src/model/entity/event.ts, src/model/outbox.ts): an event
 * survives the wire (the relay decodes stream images with `eventFromItem`), its key sorts by
 * sequence, its TTL is 7 days after it occurred, and the sequence step conditions the root on the
 * value read.
 */
import { describe, expect, it } from 'vitest';
import {
  entityOf,
  EVENT_TTL_SECONDS,
  eventFromItem,
  eventKeys,
  eventToItem,
  newId,
  outboxEvent,
  sequenceOf,
  sequenceStep,
  SYSTEM_ACTOR,
  type OutboxEvent,
} from '../../src/model';
import { throughTheWire } from './arbitraries';

const customerId = newId();
const placed: OutboxEvent = {
  eventId: newId(),
  eventType: 'OrderPlaced',
  aggregateType: 'Customer',
  aggregateId: customerId,
  sequence: 12,
  customerId,
  payload: { orderId: newId(), status: 'PENDING', totalCents: 3399, lineCount: 2, placedAt: '2026-09-15T10:30:00.000Z' },
  occurredAt: '2026-09-15T10:30:01.250Z',
  actor: { kind: 'customer', subject: 'sub-1' },
};

describe('outbox events', () => {
  it('round-trip through the wire, with their keys, type and TTL', () => {
    const item = eventToItem(placed);
    expect(item).toMatchObject({ PK: `EVENT#Customer#${customerId}`, SK: 'SEQ#0000000012', type: 'EVENT' });
    expect(item.expiresAt).toBe(Math.floor(Date.parse(placed.occurredAt) / 1000) + EVENT_TTL_SECONDS);
    expect(entityOf(item)?.name).toBe('Outbox event');
    expect(eventFromItem(throughTheWire(item))).toEqual(placed);
    const product: OutboxEvent = {
      ...placed,
      aggregateType: 'Product',
      aggregateId: 'MUG-1',
      eventType: 'ProductPut',
      actor: { kind: 'system' },
    };
    delete product.customerId;
    const productItem = throughTheWire(eventToItem(product));
    expect('customerId' in productItem).toBe(false);
    expect(eventFromItem(productItem)).toEqual(product);
  });

  it('sort by sequence within the aggregate, and refuse what is not an event', () => {
    expect(eventKeys.key('Order', placed.aggregateId, 9).SK < eventKeys.key('Order', placed.aggregateId, 10).SK).toBe(true);
    expect(() => eventFromItem({ ...eventToItem(placed), eventType: 'OrderShipped' })).toThrow(/unknown eventType/);
    expect(() => eventFromItem({ ...eventToItem(placed), actor: undefined })).toThrow(/actor/);
    expect(() => eventFromItem({ PK: `CUSTOMER#${customerId}`, SK: 'PROFILE' })).toThrow(/not an outbox event/);
  });

  it('are made from a draft with a new id, without undefined payload members, and a plain actor', () => {
    const draft = {
      eventType: 'CustomerUpdated' as const,
      aggregateType: 'Customer' as const,
      aggregateId: customerId,
      customerId,
      payload: { name: 'Ana', email: undefined },
    };
    const event = outboxEvent(draft, 3, { kind: 'staff', subject: 'dev-staff', token: 'secret' } as never);
    expect(event).toMatchObject({ sequence: 3, payload: { name: 'Ana' }, actor: { kind: 'staff', subject: 'dev-staff' } });
    expect(Object.keys(event.payload)).toEqual(['name']);
    expect(outboxEvent(draft, 1, SYSTEM_ACTOR).eventId).not.toBe(event.eventId);
    expect(() => outboxEvent(draft, 1, { kind: 'customer' })).toThrow(/needs its subject/);
  });

  it('step the root from the sequence read: absent is 0', () => {
    expect(sequenceOf(undefined)).toBe(0);
    expect(sequenceOf({ eventSeq: 7 })).toBe(7);
    expect(sequenceStep(0)).toEqual({ condition: 'attribute_not_exists(eventSeq)', set: 'eventSeq = :seq', values: { ':seq': 1 } });
    expect(sequenceStep(7)).toEqual({ condition: 'eventSeq = :seqWas', set: 'eventSeq = :seq', values: { ':seq': 8, ':seqWas': 7 } });
  });
});
