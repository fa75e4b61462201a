/**
 * The transactional outbox over real HTTP, real tokens and the real engine: each mutation's one
 * TransactWriteItems carries exactly its event (read from the wire), the event item as stored,
 * sequences dense per aggregate (customer, order, product) across mutations and under races, and
 * a cancelled transaction (taken email, address bound, idempotent replay, forbidden move) emits
 * nothing. The design is src/model/outbox.ts.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, operations, type Stack } from './support/stack';
import type { WireRequest } from '@single-table/engine';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import {
  address,
  CREATE,
  freshEmail,
  lines,
  loadCatalog,
  MOVE,
  PLACE,
  PUT_ADDRESS,
  REMOVE_ADDRESS,
  UPDATE,
  writeHelpers,
} from './support/write-path';
import { EVENT_TTL_SECONDS, eventFromItem, MAX_ADDRESSES, newId } from '../src/model';
import type { Item } from '../src/dynamo/table';

const PUT_PRODUCT = `mutation($input: ProductInput!) { putProduct(input: $input) { sku priceCents active } }`;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await loadCatalog(stack);
});
afterAll(async () => {
  await stack?.close();
});

const { createCustomer, placeOrder, expectRefused } = writeHelpers(() => stack);

/** The items a request's TransactWriteItems puts under EVENT#…, as sent on the wire. */
function eventPuts(request: WireRequest): Item[] {
  const actions = request.body.TransactItems as Array<{ Put?: { Item: Record<string, never> } }>;
  return actions
    .filter((action) => action.Put && String(unmarshall(action.Put.Item).PK).startsWith('EVENT#'))
    .map((a) => unmarshall(a.Put!.Item));
}

/** The one committed transaction of a measured mutation: the last TransactWriteItems on the wire. */
function committed(wire: WireRequest[]): WireRequest {
  return wire.filter((request) => request.operation === 'TransactWriteItems').at(-1)!;
}

/** An aggregate's stored events, in sequence order. */
async function eventsOf(aggregate: string, id: string): Promise<Item[]> {
  return (await stack.items())
    .filter((item) => item.PK === `EVENT#${aggregate}#${id}`)
    .sort((a, b) => String(a.SK).localeCompare(String(b.SK)));
}

/** The stored item named by an event's keys. */
async function stored(event: Item): Promise<Item | undefined> {
  return (await stack.items()).find((item) => item.PK === event.PK && item.SK === event.SK);
}

const seqKey = (sequence: number) => `SEQ#${String(sequence).padStart(10, '0')}`;

describe('each mutation writes exactly its event, in its own transaction', () => {
  it('createCustomer: CustomerCreated, sequence 1, stored whole with its TTL and the actor that caused it', async () => {
    const subject = `outbox-${newId()}`;
    const email = freshEmail('outbox.create');
    const { response, wire } = await stack.measure(CREATE, { input: { name: 'Ana', email } }, bearer(await tokens.subject(subject)));
    const customer = dataOf(response).createCustomer;
    expect(operations(wire)).toEqual(['TransactWriteItems']);
    expect(wire[0]!.body.TransactItems).toHaveLength(3);
    const [sent] = eventPuts(wire[0]!);
    expect(eventPuts(wire[0]!)).toHaveLength(1);
    const item = await stored(sent!);
    expect(item).toEqual(sent);
    expect(item).toEqual({
      PK: `EVENT#Customer#${customer.id}`,
      SK: seqKey(1),
      type: 'EVENT',
      eventId: expect.stringMatching(ULID),
      eventType: 'CustomerCreated',
      aggregateType: 'Customer',
      aggregateId: customer.id,
      sequence: 1,
      customerId: customer.id,
      payload: { name: 'Ana', email },
      occurredAt: expect.stringMatching(ISO),
      actor: { kind: 'customer', subject },
      expiresAt: Math.floor(Date.parse(String(item!.occurredAt)) / 1000) + EVENT_TTL_SECONDS,
    });
    expect(EVENT_TTL_SECONDS).toBe(7 * 24 * 3600);
    expect(Math.abs(Date.parse(String(item!.occurredAt)) - Date.now())).toBeLessThan(60_000);
    // The profile holds the aggregate's sequence; the relay reads the event back with the codec.
    expect((await stack.items()).find((i) => i.PK === `CUSTOMER#${customer.id}` && i.SK === 'PROFILE')!.eventSeq).toBe(1);
    expect(eventFromItem(item!)).toEqual({
      eventId: item!.eventId,
      eventType: 'CustomerCreated',
      aggregateType: 'Customer',
      aggregateId: customer.id,
      sequence: 1,
      customerId: customer.id,
      payload: { name: 'Ana', email },
      occurredAt: item!.occurredAt,
      actor: { kind: 'customer', subject },
    });
  });

  it('the customer aggregate: one dense sequence across profile, addresses and orders, each in the request budget', async () => {
    const customer = await createCustomer('Seq', freshEmail('outbox.seq'));
    const asCustomer = bearer(await tokens.customer(customer.id));
    const newEmail = freshEmail('outbox.moved');
    const steps: Array<[string, Record<string, unknown>, string[], string, Record<string, unknown>]> = [
      [UPDATE, { id: customer.id, input: { name: 'Renamed' } }, ['GetItem', 'TransactWriteItems'], 'CustomerUpdated', { name: 'Renamed' }],
      [
        PUT_ADDRESS,
        { customerId: customer.id, input: address('home') },
        ['GetItem', 'TransactWriteItems'],
        'AddressPut',
        { label: 'home' },
      ],
      [
        PUT_ADDRESS,
        { customerId: customer.id, input: { ...address('home'), city: 'Toledo' } },
        ['GetItem', 'TransactWriteItems'],
        'AddressPut',
        { label: 'home' },
      ],
      [REMOVE_ADDRESS, { customerId: customer.id, label: 'home' }, ['GetItem', 'TransactWriteItems'], 'AddressRemoved', { label: 'home' }],
      [UPDATE, { id: customer.id, input: { email: newEmail } }, ['GetItem', 'TransactWriteItems'], 'CustomerUpdated', { email: newEmail }],
    ];
    let sequence = 1;
    for (const [query, variables, requests, eventType, payload] of steps) {
      const { response, wire } = await stack.measure(query, variables, asCustomer);
      dataOf(response);
      sequence += 1;
      expect(operations(wire), eventType).toEqual(requests);
      const events = eventPuts(committed(wire));
      expect(events).toEqual([
        expect.objectContaining({
          PK: `EVENT#Customer#${customer.id}`,
          SK: seqKey(sequence),
          sequence,
          eventType,
          payload,
          customerId: customer.id,
        }),
      ]);
      expect(await stored(events[0]!)).toEqual(events[0]);
      expect(events[0]!.actor).toEqual({ kind: 'customer', subject: `dev-customer-${customer.id}` });
    }

    // placeOrder: the profile rides in the catalog read; OrderPlaced belongs to the order, and no item of the customer is written.
    const { response, wire } = await stack.measure(PLACE, { input: { idempotencyKey: 'outbox-1', lines } }, asCustomer);
    const order = dataOf(response).placeOrder;
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(wire[0]!.body.RequestItems.app.Keys.map((key: Record<string, never>) => unmarshall(key))).toContainEqual({
      PK: `CUSTOMER#${customer.id}`,
      SK: 'PROFILE',
    });
    expect(wire[1]!.body.TransactItems).toHaveLength(4 + lines.length);
    const written = wire[1]!.body.TransactItems.map((action: { Put?: { Item: Record<string, never> } }) => unmarshall(action.Put!.Item));
    expect(written.filter((item: Item) => item.PK === `CUSTOMER#${customer.id}`).map((item: Item) => item.type)).toEqual(['ORDER']);
    const [placed] = eventPuts(wire[1]!);
    expect(eventPuts(wire[1]!)).toHaveLength(1);
    expect(await stored(placed!)).toEqual(placed);
    expect(placed).toMatchObject({
      SK: seqKey(1),
      eventType: 'OrderPlaced',
      aggregateType: 'Order',
      aggregateId: order.id,
      sequence: 1,
      customerId: customer.id,
      payload: { orderId: order.id, status: 'PENDING', totalCents: 2 * 1250 + 899, lineCount: 2, placedAt: order.placedAt },
    });
    expect(await eventsOf('Order', order.id)).toEqual([placed]);

    const events = await eventsOf('Customer', customer.id);
    expect(events.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.map((event) => event.eventType)).toEqual([
      'CustomerCreated',
      'CustomerUpdated',
      'AddressPut',
      'AddressPut',
      'AddressRemoved',
      'CustomerUpdated',
    ]);
    expect(new Set(events.map((event) => event.eventId)).size).toBe(6);
    const items = await stack.items();
    expect(items.find((i) => i.PK === `CUSTOMER#${customer.id}` && i.SK === 'PROFILE')!.eventSeq).toBe(6);
    expect(items.find((i) => i.PK === `ORDER#${order.id}` && i.SK === 'ORDER')!.eventSeq).toBe(1);
  });

  it("the order aggregate: OrderStatusChanged on the order's own sequence, naming its customer", async () => {
    const customer = await createCustomer('Mover', freshEmail('outbox.move'));
    const order = await placeOrder(customer.id);
    const moves: Array<[string, string]> = [
      ['PENDING', 'PAID'],
      ['PAID', 'SHIPPED'],
    ];
    for (const [index, [from, to]] of moves.entries()) {
      const { response, wire } = await stack.measure(MOVE, { id: order.id, status: to });
      expect(dataOf(response).updateOrderStatus.status).toBe(to);
      expect(operations(wire)).toEqual(['GetItem', 'TransactWriteItems']);
      expect(wire[1]!.body.TransactItems).toHaveLength(3);
      expect(eventPuts(wire[1]!)).toEqual([
        expect.objectContaining({
          PK: `EVENT#Order#${order.id}`,
          SK: seqKey(index + 2), // after its OrderPlaced, 1
          eventType: 'OrderStatusChanged',
          aggregateType: 'Order',
          aggregateId: order.id,
          customerId: customer.id,
          payload: { orderId: order.id, from, to },
          actor: { kind: 'staff', subject: 'dev-staff' },
        }),
      ]);
    }
    expect((await eventsOf('Order', order.id)).map((event) => event.sequence)).toEqual([1, 2, 3]);
  });

  it('the product aggregate: ProductPut keyed by SKU, one request for a new SKU, two for a replaced one', async () => {
    const sku = `OUTBOX-${newId()}`;
    const first = await stack.measure(PUT_PRODUCT, { input: { sku, name: 'Lamp', priceCents: 1999, active: true } });
    expect(dataOf(first.response).putProduct).toEqual({ sku, priceCents: 1999, active: true });
    expect(operations(first.wire)).toEqual(['TransactWriteItems']);
    const second = await stack.measure(PUT_PRODUCT, { input: { sku, name: 'Lamp', priceCents: 2499, active: false } });
    // The first attempt assumed a new SKU; its cancellation returned the product (ALL_OLD) and its sequence.
    expect(operations(second.wire)).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    const events = await eventsOf('Product', sku);
    expect(events).toEqual([
      expect.objectContaining({ SK: seqKey(1), eventType: 'ProductPut', payload: { sku, priceCents: 1999, active: true } }),
      expect.objectContaining({ SK: seqKey(2), eventType: 'ProductPut', payload: { sku, priceCents: 2499, active: false } }),
    ]);
    expect(events.every((event) => !('customerId' in event))).toBe(true);
    expect(eventPuts(committed(second.wire))).toEqual([events[1]]);
  });
});

describe('a cancelled transaction emits nothing', () => {
  it('a taken email, on create and on update', async () => {
    const holder = await createCustomer('Holder', freshEmail('outbox.taken'));
    const other = await createCustomer('Other', freshEmail('outbox.other'));
    await expectRefused('CONFLICT', () => stack.gql(CREATE, { input: { name: 'Second', email: holder.email } }));
    await expectRefused('CONFLICT', () => stack.gql(UPDATE, { id: other.id, input: { email: holder.email } }));
    expect((await eventsOf('Customer', other.id)).map((event) => event.eventType)).toEqual(['CustomerCreated']);
  });

  it('an address over the bound, a label that is not there, and an update that changes nothing', async () => {
    const customer = await createCustomer('Full', freshEmail('outbox.full'));
    for (let i = 0; i < MAX_ADDRESSES; i++) dataOf(await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address(`l${i}`) }));
    await expectRefused('CONFLICT', () => stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address('one-more') }), { requests: 1 });
    const before = await stack.items();
    stack.engine.wire.reset();
    expect(dataOf(await stack.gql(REMOVE_ADDRESS, { customerId: customer.id, label: 'absent' })).removeAddress).toBe(false);
    expect(dataOf(await stack.gql(UPDATE, { id: customer.id, input: { name: 'Full' } })).updateCustomer.name).toBe('Full');
    expect(operations(stack.engine.wire.requests())).toEqual(['GetItem', 'GetItem']);
    expect(await stack.items()).toEqual(before);
    expect(await eventsOf('Customer', customer.id)).toHaveLength(1 + MAX_ADDRESSES);
  });

  it('an idempotent replay of placeOrder, and a forbidden move', async () => {
    const customer = await createCustomer('Replay', freshEmail('outbox.replay'));
    const order = await placeOrder(customer.id, 'outbox-replay');
    const before = await stack.items();
    const { response, wire } = await stack.measure(PLACE, { input: { customerId: customer.id, idempotencyKey: 'outbox-replay', lines } });
    expect(dataOf(response).placeOrder.id).toBe(order.id);
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems', 'Query']); // cancelled, then the order read back
    expect(await stack.items()).toEqual(before);
    await expectRefused('CONFLICT', () => stack.gql(MOVE, { id: order.id, status: 'DELIVERED' }));
    expect((await eventsOf('Order', order.id)).map((event) => event.eventType)).toEqual(['OrderPlaced']);
    expect((await eventsOf('Customer', customer.id)).map((event) => event.eventType)).toEqual(['CustomerCreated']);
  });
});

describe('racing writers of one aggregate never share a sequence', () => {
  /** Sequences 1..n, each once, and the root's eventSeq is n. */
  function expectDense(events: Item[], n: number) {
    expect(events.map((event) => event.sequence)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(new Set(events.map((event) => event.eventId)).size).toBe(n);
  }

  it('8 address puts and 4 orders of one customer at once: the orders touch no item of the customer', async () => {
    const customer = await createCustomer('Racer', freshEmail('outbox.race'));
    const [puts, orders] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, i) => stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address(`race-${i}`) }))),
      Promise.all(
        Array.from({ length: 4 }, (_, i) => stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: `race-${i}`, lines } })),
      ),
    ]);
    // Each order its own aggregate: all placed, each with its OrderPlaced as sequence 1.
    for (const response of orders) expect((await eventsOf('Order', dataOf(response).placeOrder.id)).map((e) => e.sequence)).toEqual([1]);
    // The address puts race on the profile's sequence: a loser past its retries is the retryable code, never an internal error.
    const landed = puts.filter((response) => !response.errors);
    for (const response of puts) if (response.errors) expectError(response, 'UNAVAILABLE');
    expect(landed.length).toBeGreaterThan(0);
    const events = await eventsOf('Customer', customer.id);
    expectDense(events, 1 + landed.length);
    const profile = (await stack.items()).find((i) => i.PK === `CUSTOMER#${customer.id}` && i.SK === 'PROFILE')!;
    expect(profile.eventSeq).toBe(1 + landed.length);
    expect(
      events
        .filter((event) => event.eventType === 'AddressPut')
        .map((event) => event.payload)
        .sort((a, b) => String((a as { label: string }).label).localeCompare(String((b as { label: string }).label))),
    ).toEqual([...(profile.addressLabels as Set<string>)].sort().map((label) => ({ label })));
  });

  it('8 moves of one order, and 6 puts of one product', async () => {
    const customer = await createCustomer('Order racer', freshEmail('outbox.moves'));
    const order = await placeOrder(customer.id);
    const targets = ['PAID', 'CANCELLED', 'PAID', 'SHIPPED', 'CANCELLED', 'PAID', 'DELIVERED', 'CANCELLED'];
    const moves = await Promise.all(targets.map((status) => stack.gql(MOVE, { id: order.id, status })));
    const landed = moves.filter((response) => !response.errors).map((response) => response.data.updateOrderStatus.status);
    const events = await eventsOf('Order', order.id);
    expectDense(events, 1 + landed.length);
    expect(events[0]!.eventType).toBe('OrderPlaced');
    // The events chain: each starts where the previous one ended.
    let status = 'PENDING';
    for (const event of events.slice(1)) {
      expect((event.payload as { from: string }).from).toBe(status);
      status = (event.payload as { to: string }).to;
    }
    expect((await stack.items()).find((i) => i.PK === `ORDER#${order.id}` && i.SK === 'ORDER')!.status).toBe(status);

    const sku = `RACE-${newId()}`;
    const puts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stack.gql(PUT_PRODUCT, { input: { sku, name: `v${i}`, priceCents: 100 + i, active: true } })),
    );
    const written = puts.filter((response) => !response.errors);
    for (const response of puts) if (response.errors) expectError(response, 'CONFLICT');
    const productEvents = await eventsOf('Product', sku);
    expectDense(productEvents, written.length);
    const product = (await stack.items()).find((i) => i.PK === 'CATALOG' && i.SK === `PRODUCT#${sku}`)!;
    expect(product.eventSeq).toBe(written.length);
    // The product as stored is the last event's.
    expect(productEvents.at(-1)!.payload).toEqual({ sku, priceCents: product.priceCents, active: true });
  });
});
