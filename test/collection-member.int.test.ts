/**
 * A collection is declared by its members, and the machinery serves whatever is declared: here, in
 * test code only, the customer collection with one more member (a wishlist, above the addresses)
 * and a second collection (an order: its header and its lines), each served by `Collections` with
 * one bounded Query on the real engine. Nothing of src/model/customer-collection/ names a member;
 * the key conditions, `Limit`s, the split by `type`, the bound cut and the patterns' names and
 * bounds come from the declarations below.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { buildCustomer, customerItems, loadItems } from './support/fixtures';
import type { Item } from '../src/dynamo/table';
import {
  checkOrderWindow,
  Collections,
  customerCollection,
  defineCollection,
  defineEntity,
  orderHeaderEntity,
  orderLineEntity,
  orderRuns,
  plannedPatterns,
  str,
  type CollectionAnomaly,
  type CollectionDeclaration,
  type MemberSpec,
  type OrderLineRecord,
  type OrderPage,
} from '../src/model';

/** A wishlist item: one more member of the customer collection, declared here only. */
const wishEntity = defineEntity({
  name: 'Wishlist item',
  type: 'WISH',
  parts: { customerId: { shape: '[0-9A-HJKMNP-TV-Z]{26}' }, sku: { shape: '[^#]{1,64}' } },
  table: { PK: 'CUSTOMER#{customerId}', SK: 'PROFILE#WISH#{sku}' },
  expires: false,
  codec: { toItem: wishToItem, fromItem: (item: Item) => ({ sku: str(item, 'sku') }) },
});
function wishToItem(customerId: string, sku: string): Item {
  return { ...wishEntity.itemKeys({ customerId, sku }), customerId, sku };
}

const WISH_BOUND = 3;
const withWishlist = defineCollection({
  name: 'Customer collection with a wishlist',
  graphql: 'Customer',
  patterns: 'wishful',
  members: {
    wishes: { entity: wishEntity, key: 'customerId', bound: WISH_BOUND, fields: ['wishlist'] },
    ...Object.fromEntries(customerCollection.members.map((member) => [member.name, member])),
  } as unknown as Record<'wishes' | 'addresses' | 'profile' | 'orders', MemberSpec>,
  descending: ['wishes', 'addresses', 'profile', 'orders'],
  runs: orderRuns,
});

/** An order's own collection: the header, then its lines, read by `Limit` (one run, from the top). */
const orderCollection = defineCollection({
  name: 'Order collection',
  members: {
    header: { entity: orderHeaderEntity, key: 'id', bound: 1 },
    lines: { entity: orderLineEntity, key: 'orderId', bound: 'window' },
  },
  descending: ['header', 'lines'],
});

let stack: Stack;
const fixture = buildCustomer({ addresses: 2, orders: 8, lines: () => 6 });
const wishes = ['BOOK-001', 'MUG-002'];

beforeAll(async () => {
  stack = await startStack();
  await loadItems(stack, customerItems(fixture));
  await putUnguarded(wishes.map((sku) => wishToItem(fixture.customer.id, sku)));
  await stack.settled(); // the reads below are eventually consistent
});

/** Writes items of the test-only entity past the product's write guards, which claim only the product's entities. */
async function putUnguarded(items: readonly Item[]): Promise<void> {
  for (const Item of items) await stack.doc.send(new PutCommand({ TableName: stack.tableName, Item }));
}
afterAll(async () => {
  await stack?.close();
});

/** Loads one request through `Collections` and returns its answer with the Queries on the wire. */
async function served<W extends { first: number; start: undefined | Record<string, unknown> }>(
  collection: CollectionDeclaration<string, never>,
  id: string,
  need: Record<string, unknown> & { windows: W[] },
  anomalies: CollectionAnomaly[] = [],
) {
  const collections = new Collections(collection as CollectionDeclaration, stack.table, { onAnomaly: (a) => anomalies.push(a) });
  stack.engine.wire.reset();
  const [view] = await collections.load([{ customerId: id, need: need as never }]);
  const wire = stack.engine.wire.requests().map((request) => ({
    operation: request.operation,
    condition: request.body.KeyConditionExpression,
    limit: request.body.Limit,
  }));
  return { view: view as Record<string, any>, wire };
}

describe('a member declared in test code is served by the same machinery', () => {
  const id = fixture.customer.id;
  const newest = (first: number) => checkOrderWindow(id, { first });

  it('the screen with the wishlist is one descending Query whose Limit counts the new member’s bound', async () => {
    const { view, wire } = await served(withWishlist, id, { wishes: true, addresses: true, profile: true, windows: [newest(5)] });
    expect(wire).toEqual([{ operation: 'Query', condition: 'PK = :pk', limit: WISH_BOUND + 10 + 1 + 5 + 1 }]);
    expect(view.wishes).toEqual([{ sku: 'BOOK-001' }, { sku: 'MUG-002' }]);
    expect(view.addresses.map((a: { label: string }) => a.label)).toEqual(fixture.addresses.map((a) => a.label));
    expect(view.profile).toMatchObject({ id, name: fixture.customer.name });
    expect((view.pages[0] as OrderPage).orders.map((o) => o.id)).toEqual(fixture.orders.slice(0, 5).map((o) => o.id));
    expect((view.pages[0] as OrderPage).hasNextPage).toBe(true);
  });

  it('the wishlist alone reads the head ascending, Limit the head’s bounds; the profile and orders start below it', async () => {
    const head = await served(withWishlist, id, { wishes: true, addresses: false, profile: false, windows: [] });
    expect(head.wire).toEqual([{ operation: 'Query', condition: 'PK = :pk AND begins_with(SK, :head)', limit: 1 + 10 + WISH_BOUND }]);
    expect(head.view.wishes).toHaveLength(2);
    const below = await served(withWishlist, id, { wishes: false, addresses: false, profile: true, windows: [newest(4)] });
    expect(below.wire).toEqual([{ operation: 'Query', condition: 'PK = :pk AND SK <= :profile', limit: 1 + 4 + 1 }]);
    // The addresses and the newest orders: from the addresses down, under the wishlist.
    const addresses = await served(withWishlist, id, { wishes: false, addresses: true, profile: false, windows: [newest(4)] });
    expect(addresses.wire).toEqual([{ operation: 'Query', condition: 'PK = :pk AND SK < :above', limit: 10 + 1 + 4 + 1 }]);
    expect(addresses.view.addresses).toHaveLength(2);
    expect((addresses.view.pages[0] as OrderPage).orders).toHaveLength(4);
  });

  it('a member over its declared bound is answered up to it and reported', async () => {
    const over = buildCustomer({ addresses: 0, orders: 1 });
    const skus = ['A-1', 'A-2', 'A-3', 'A-4', 'A-5'];
    await loadItems(stack, customerItems(over));
    await putUnguarded(skus.map((sku) => wishToItem(over.customer.id, sku)));
    await stack.settled();
    const anomalies: CollectionAnomaly[] = [];
    const { view } = await served(
      withWishlist,
      over.customer.id,
      { wishes: true, addresses: false, profile: true, windows: [] },
      anomalies,
    );
    expect(view.wishes).toEqual(skus.slice(0, WISH_BOUND).map((sku) => ({ sku })));
    expect(anomalies).toEqual([expect.objectContaining({ customerId: over.customer.id, member: 'wishes' })]);
  });

  it('its planned patterns are named and bounded from the declaration', () => {
    const patterns = plannedPatterns(withWishlist, 'Customer profile', 'Customer');
    const id = fixture.customer.id;
    const [profiles, ...planned] = [patterns.at(-1)!, ...patterns.slice(0, -1)];
    expect(planned.map((p) => [p.name, p.bound(id, 5)])).toEqual([
      ['wishfulScreen', WISH_BOUND + 10 + 1 + 5 + 1],
      ['wishfulProfileOrders', 1 + 5 + 1],
      ['wishfulHead', WISH_BOUND + 10 + 1],
      ['wishfulOrderWindow', 5 + 1],
    ]);
    expect([profiles.name, profiles.bound([id, fixture.orders[0]!.id])]).toEqual(['wishfulProfiles', 2]);
    // Each is declared with the builder the planner sends: the screen's built request is what went out above.
    expect(patterns[0]!.request(id, 5)).toEqual({
      kind: 'Query',
      input: {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `CUSTOMER#${id}` },
        ScanIndexForward: false,
        Limit: WISH_BOUND + 10 + 1 + 5 + 1,
      },
    });
    expect(patterns[0]!.graphql).toContain('Customer.wishlist');
  });
});

describe('a second collection declared in test code is served by the same machinery', () => {
  const order = fixture.orders[0]!;

  it('an order’s header and its first lines: one descending Query, Limit 1 + first + 1', async () => {
    const { view, wire } = await served(orderCollection, order.id, { header: true, windows: [{ first: 4, start: undefined }] });
    expect(wire).toEqual([{ operation: 'Query', condition: 'PK = :pk', limit: 1 + 4 + 1 }]);
    expect(view.header).toMatchObject({ id: order.id, customerId: fixture.customer.id, lineCount: 6 });
    // Descending: the highest line numbers first, as the window member is read by Limit from the top.
    expect((view.pages[0] as OrderLineRecord[]).map((line) => line.lineNo)).toEqual([6, 5, 4, 3]);
  });

  it('a missing order is null after one GetItem of its header (the root alone: no Query)', async () => {
    const { view, wire } = await served(orderCollection, '01ARZ3NDEKTSV4RRFFQ69G5FAV', { header: true, windows: [] });
    expect(view).toBeNull();
    expect(wire).toEqual([{ operation: 'GetItem', condition: undefined, limit: undefined }]);
  });
});
