import { marshall } from '@aws-sdk/util-dynamodb';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  addressToItem,
  customerKeys,
  DomainError,
  guardActions,
  guardItem,
  headerToItem,
  idempotencyToItem,
  itemSize,
  MAX_ITEM_BYTES,
  newId,
  customerToItem,
  eventToItem,
  outboxEvent,
  SYSTEM_ACTOR,
} from '../../src/model';

const dynalite = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: unknown): number };

const customer = { id: newId(), name: 'Ana', email: 'ana@example.com', createdAt: '2026-09-01T10:00:00.000Z' };

describe('item size, as DynamoDB counts it', () => {
  it('agrees with the embedded engine on names and values of every kind', () => {
    const items = [
      customerToItem(customer),
      addressToItem(customer.id, { label: 'home', street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' }),
      headerToItem({
        id: newId(),
        customerId: customer.id,
        placedAt: '2026-09-01T10:00:00.000Z',
        status: 'PAID',
        totalCents: 123456,
        lineCount: 3,
      }),
      {
        PK: 'X',
        SK: 'Y',
        n: 0,
        m: -12.5,
        big: 1234567890123,
        small: 0.00051,
        round: 1200,
        tiny: 1.5e-7,
        flag: true,
        none: null,
        set: new Set(['a', 'bb']),
        list: ['a', 1],
        map: { k: 'v', n: 2 },
      },
    ];
    for (const item of items) expect(itemSize(item)).toBe(dynalite.itemSize(marshall(item, { convertClassInstanceToMap: true })));
  });

  it('counts strings in UTF-8 bytes, as Amazon does (the engine counts UTF-16 units)', () => {
    expect(itemSize({ city: 'Málaga' })).toBe(4 + 7);
    expect(itemSize({ emoji: '🏃' })).toBe(5 + 4);
  });
});

describe('write guards', () => {
  it('refuses an item larger than 400 KB with BAD_USER_INPUT', () => {
    const item = { ...customerToItem(customer), name: 'x'.repeat(MAX_ITEM_BYTES) };
    expect(() => guardItem(item)).toThrowError(DomainError);
    try {
      guardItem(item);
    } catch (error) {
      expect((error as DomainError).code).toBe('BAD_USER_INPUT');
    }
    expect(guardItem(customerToItem(customer))).toEqual(customerToItem(customer));
  });

  it('lets only idempotency records and outbox events carry the TTL attribute, and requires it on them', () => {
    expect(() =>
      guardItem(idempotencyToItem({ customerId: newId(), key: 'k', orderId: newId(), fingerprint: 'f', expiresAt: 1 })),
    ).not.toThrow();
    const event = eventToItem(
      outboxEvent(
        {
          eventType: 'AddressPut',
          aggregateType: 'Customer',
          aggregateId: customer.id,
          customerId: customer.id,
          payload: { label: 'home' },
        },
        1,
        SYSTEM_ACTOR,
      ),
    );
    expect(() => guardItem(event)).not.toThrow();
    const { expiresAt: _ttl, ...forever } = event;
    expect(() => guardItem(forever)).toThrow(/Outbox event without expiresAt: it would never expire/);
    expect(() => guardItem({ ...customerToItem(customer), expiresAt: 1 })).toThrow(/only idempotency records and outbox events may expire/);
    expect(() =>
      guardActions([
        {
          Update: {
            Key: customerKeys.profile(customer.id),
            UpdateExpression: 'SET expiresAt = :t',
            ExpressionAttributeValues: { ':t': 1 },
          },
        },
      ]),
    ).toThrow(/only idempotency records and outbox events may expire/);
  });

  it('refuses an item whose key no entity claims', () => {
    expect(() => guardItem({ PK: 'WIDGET#1', SK: 'WIDGET' })).toThrow(/no entity claims/);
  });
});
