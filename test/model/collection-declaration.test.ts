/**
 * The customer collection's declaration (src/model/customer-collection/): the real one is
 * consistent, and a declaration that contradicts itself is refused when it is built.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WRITE_SHARDS,
  addressEntity,
  addressToItem,
  customerCollection,
  customerEntity,
  customerToItem,
  defineCollection,
  defineEntity,
  headerToItem,
  MAX_ADDRESSES,
  newId,
  orderSummaryEntity,
  sortsAbove,
  summaryToItem,
  type OrderRecord,
} from '../../src/model';

const ID = '[0-9A-HJKMNP-TV-Z]{26}';
const customerId = newId();
const order: OrderRecord = { id: newId(), customerId, placedAt: '2026-09-01T10:00:00.000Z', status: 'PAID', totalCents: 100, lineCount: 1 };
const members = {
  addresses: { entity: addressEntity, key: 'customerId', bound: MAX_ADDRESSES },
  profile: { entity: customerEntity, key: 'id', bound: 1 },
  orders: { entity: orderSummaryEntity, key: 'customerId', bound: 'window' as const },
};

describe('the customer collection as declared', () => {
  it('has its members top first, the head bounded by 1 + 10 and the orders as its window', () => {
    expect(customerCollection.members.map((m) => [m.name, m.prefix, m.bound])).toEqual([
      ['addresses', 'PROFILE#ADDRESS#', MAX_ADDRESSES],
      ['profile', 'PROFILE', 1],
      ['orders', 'ORDER#', 'window'],
    ]);
    expect(customerCollection.head).toMatchObject({ prefix: 'PROFILE', bound: 1 + MAX_ADDRESSES });
    expect(customerCollection.window.name).toBe('orders');
    expect(customerCollection.boundAbove('orders')).toBe(1 + MAX_ADDRESSES);
    expect(customerCollection.boundAbove('profile')).toBe(MAX_ADDRESSES);
    expect(customerCollection.pk(customerId)).toBe(`CUSTOMER#${customerId}`);
    expect(customerCollection.idOf(`CUSTOMER#${customerId}`)).toBe(customerId);
  });

  it('splits items by their type, asserting their keys', () => {
    const profile = customerToItem({ id: customerId, name: 'A', email: 'a@example.com', createdAt: '2026-01-01T00:00:00.000Z' });
    const address = addressToItem(customerId, { label: 'home', street: 's', city: 'c', postalCode: 'p', country: 'ES' });
    expect(customerCollection.memberOf(profile).name).toBe('profile');
    expect(customerCollection.memberOf(address).name).toBe('addresses');
    expect(customerCollection.memberOf(summaryToItem(order, DEFAULT_WRITE_SHARDS)).name).toBe('orders');
    // An order header is no member; a summary whose SK is not an order's is corrupt.
    expect(() => customerCollection.memberOf(headerToItem(order))).toThrow(/no member's/);
    expect(() => customerCollection.memberOf({ ...summaryToItem(order, DEFAULT_WRITE_SHARDS), SK: 'PROFILE#X' })).toThrow(/not its keys/);
    expect(() => customerCollection.memberOf({ ...address, type: undefined })).toThrow(/no member's/);
  });
});

describe('a declaration that contradicts itself is refused when built', () => {
  const build = (overrides: Partial<Parameters<typeof defineCollection>[0]>) => () =>
    defineCollection({ name: 'test', pk: 'CUSTOMER#{customerId}', members, descending: ['addresses', 'profile', 'orders'], ...overrides });

  it('accepts the right one', () => {
    expect(build({})).not.toThrow();
  });

  it('refuses members in an order they do not sort in', () => {
    expect(build({ descending: ['profile', 'addresses', 'orders'] })).toThrow(/does not sort above/);
    expect(build({ descending: ['addresses', 'orders', 'profile'] })).toThrow(/does not sort above/);
  });

  it('refuses a member of another partition key, or naming the key by another part', () => {
    const header = defineEntity({
      name: 'Elsewhere',
      type: 'ELSEWHERE',
      parts: { id: { shape: ID } },
      table: { PK: 'ORDER#{id}', SK: 'PROFILE#Z#{id}' },
      expires: false,
    });
    expect(build({ members: { ...members, addresses: { entity: header, key: 'id', bound: 3 } } })).toThrow(/not the collection's/);
    expect(build({ members: { ...members, profile: { entity: customerEntity, key: 'customerId', bound: 1 } } })).toThrow(
      /not the collection's/,
    );
  });

  it('refuses a head that is not one range apart from the window, and a window that is not last', () => {
    // Sorted right, but the head has no common prefix: it is not one begins_with range.
    const note = defineEntity({
      name: 'Note',
      type: 'NOTE',
      parts: { customerId: { shape: ID }, n: { shape: '\\d{2}' } },
      table: { PK: 'CUSTOMER#{customerId}', SK: 'Q#{n}' },
      expires: false,
    });
    expect(build({ members: { ...members, addresses: { entity: note, key: 'customerId', bound: 2 } } })).toThrow(
      /head prefix "" does not set the head apart/,
    );
    expect(build({ members: { ...members, profile: { entity: customerEntity, key: 'id', bound: 'window' } } })).toThrow(
      /the last, is the window/,
    );
    expect(build({ descending: ['addresses', 'profile'] })).toThrow(/every member once/);
  });

  it('refuses a bound that is not a positive integer, and two members of one type', () => {
    expect(build({ members: { ...members, addresses: { entity: addressEntity, key: 'customerId', bound: 0 } } })).toThrow(/bound/);
    expect(build({ members: { ...members, profile: { entity: addressEntity, key: 'customerId', bound: 1 } } })).toThrow(
      /sort above|share a type/,
    );
  });
});

describe('sortsAbove: every key of one range above every key of another', () => {
  it.each([
    [{ prefix: 'PROFILE#ADDRESS#', exact: false }, { prefix: 'PROFILE', exact: true }, true],
    [{ prefix: 'PROFILE', exact: true }, { prefix: 'ORDER#', exact: false }, true],
    [{ prefix: 'PROFILE#WISH#', exact: false }, { prefix: 'PROFILE#ADDRESS#', exact: false }, true],
    [{ prefix: 'PROFILE', exact: true }, { prefix: 'PROFILE#ADDRESS#', exact: false }, false],
    [{ prefix: 'PROFILE#', exact: false }, { prefix: 'PROFILE#ADDRESS#', exact: false }, false],
    [{ prefix: 'PROFILE#ADDRESS#', exact: false }, { prefix: 'PROFILE#', exact: false }, false],
    [{ prefix: 'A#', exact: false }, { prefix: 'A#', exact: true }, true],
    [{ prefix: 'A#', exact: false }, { prefix: 'A#', exact: false }, false],
  ])('%o above %o: %s', (upper, lower, expected) => {
    expect(sortsAbove(upper, lower)).toBe(expected);
  });
});
