/**
 * The outbox relay end to end (docs/events.md): the faithful engine with its stream, the real
 * server, mutations through GraphQL, the real relay reading the Streams API, publishing to a
 * recording publisher. Failures are injected into the publisher only (a crash between commit and
 * publication, a destination that refuses an event); a poison record is an event item that does
 * not decode, written past the write guards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf } from './support/graphql';
import { loadCatalog, MOVE, writeHelpers } from './support/write-path';
import { committedEvents, eventually, recorder, relayOver, streamsClient } from './support/relay';
import { eventEntity, type OutboxEvent } from '../src/model';

let stack: Stack;
let streams: DynamoDBStreamsClient;
const { createCustomer, placeOrder } = writeHelpers(() => stack);

beforeAll(async () => {
  stack = await startStack();
  streams = streamsClient(stack);
  await loadCatalog(stack);
}, 60_000);

afterAll(async () => {
  streams?.destroy();
  await stack?.close();
});

const move = async (id: string, status: string) => dataOf(await stack.gql(MOVE, { id, status }));
const ofAggregate = (events: readonly OutboxEvent[], id: string) => events.filter((event) => event.aggregateId === id);
const STATS = `{ me { id stats { orderCount lifetimeCents asOf } } }`;

describe('the relay publishes the outbox, at least once, from its checkpoint', () => {
  it('publishes exactly the committed events of placeOrder and updateOrderStatus, in order', async () => {
    const customer = await createCustomer('Relay Rita');
    const order = await placeOrder(customer.id);
    await move(order.id, 'PAID');
    await move(order.id, 'SHIPPED');
    const rec = recorder();
    await relayOver(stack, streams, rec, 'first').drain();

    const mine = ofAggregate(rec.events, customer.id);
    expect(mine.map((e) => [e.eventType, e.sequence])).toEqual([['CustomerCreated', 1]]);
    // The order is the aggregate of its own events: placed (1), then each move.
    const ofOrder = ofAggregate(rec.events, order.id);
    expect(ofOrder.map((e) => [e.eventType, e.sequence, e.payload.from ?? null, e.payload.to ?? e.payload.status])).toEqual([
      ['OrderPlaced', 1, null, 'PENDING'],
      ['OrderStatusChanged', 2, 'PENDING', 'PAID'],
      ['OrderStatusChanged', 3, 'PAID', 'SHIPPED'],
    ]);
    expect(ofOrder[0]!.payload).toMatchObject({ orderId: order.id, status: 'PENDING', totalCents: order.totalCents, lineCount: 2 });
    expect(ofOrder.every((e) => e.customerId === customer.id)).toBe(true);
    // Exactly the committed events: each once, none missing, none invented.
    const committed = await committedEvents(stack);
    expect(new Set(rec.events.map((e) => e.eventId)).size).toBe(rec.events.length);
    expect(rec.events.map((e) => e.eventId).sort()).toEqual(committed.map((e) => e.eventId).sort());
    // Per aggregate, in sequence order (the stream's commit order).
    for (const id of new Set(rec.events.map((e) => e.aggregateId))) {
      const sequences = ofAggregate(rec.events, id).map((e) => e.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    }
  });

  it('restarts from its checkpoint: nothing lost, nothing published twice', async () => {
    const before = recorder();
    await relayOver(stack, streams, before, 'restart').drain();
    const customer = await createCustomer('Restart Rosa');
    const order = await placeOrder(customer.id);
    await move(order.id, 'PAID');
    const after = recorder();
    await relayOver(stack, streams, after, 'restart').drain(); // a new process, the same checkpoint
    expect(after.events.map((e) => e.eventType)).toEqual(['CustomerCreated', 'OrderPlaced', 'OrderStatusChanged']);
    expect(after.events.filter((e) => before.events.some((b) => b.eventId === e.eventId))).toEqual([]);
  });

  it('delivers after a restart what was committed but not published (a crash), duplicates de-duplicated by eventId', async () => {
    await relayOver(stack, streams, recorder(), 'crash').drain();
    const customer = await createCustomer('Crash Carla');
    const orders = [await placeOrder(customer.id), await placeOrder(customer.id)];
    for (const order of orders) await move(order.id, 'PAID');
    const committed = (await committedEvents(stack)).filter((e) => e.customerId === customer.id);
    expect(committed).toHaveLength(5);

    // 1. The destination is down: nothing is published, the checkpoint stays.
    const down = recorder();
    down.failWhen = () => true;
    const first = relayOver(stack, streams, down, 'crash', { maxAttempts: 100 });
    await first.pollOnce();
    expect(down.events).toEqual([]);
    // 2. Published, then the process dies before its checkpoint: the next one publishes again.
    const dying = recorder();
    dying.crashAfterPublish = true;
    await relayOver(stack, streams, dying, 'crash', { maxAttempts: 100 }).pollOnce();
    // 3. Restarted: everything from the checkpoint, again.
    const restarted = recorder();
    await relayOver(stack, streams, restarted, 'crash').drain();

    const delivered = [...dying.events, ...restarted.events].filter((e) => e.customerId === customer.id);
    const unique = new Map(delivered.map((e) => [e.eventId, e]));
    const duplicates = delivered.length - unique.size;
    console.log(
      `crash test: committed ${committed.length}, delivered ${delivered.length}, unique ${unique.size}, duplicates ${duplicates}`,
    );
    expect([...unique.keys()].sort()).toEqual(committed.map((e) => e.eventId).sort()); // none lost
    expect(duplicates).toBe(committed.length); // the crashed attempt's, all recognisable by eventId
  });

  it('sends a poison record to the dead letters and moves on; so does an event no attempt could publish', async () => {
    await relayOver(stack, streams, recorder(), 'poison').drain();
    // An event item that does not decode (no eventType, no payload): written past the write guards.
    const poisonKey = eventEntity.key({ aggregateType: 'Customer', aggregateId: 'POISON', sequence: 1 });
    await stack.table.withGuard(undefined).put({ Item: { ...poisonKey, type: 'EVENT', expiresAt: 4_000_000_000 } });
    const customer = await createCustomer('After Poison');
    const rec = recorder();
    const relay = relayOver(stack, streams, rec, 'poison');
    await relay.drain();
    expect(rec.events.map((e) => [e.eventType, e.aggregateId])).toEqual([['CustomerCreated', customer.id]]);
    const letters = await relay.store.deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ attempts: 1, error: expect.stringContaining('lacks') });
    expect(letters[0]!.image).toContain('POISON');

    // A destination that refuses one event every time: after maxAttempts, dead-lettered; the next event goes out.
    const refused = await createCustomer('Refused Ramona');
    const after = await createCustomer('After Refused');
    rec.failWhen = (event) => event.aggregateId === refused.id;
    await eventually(async () => {
      await relay.pollOnce(); // the refused record is retried after a backoff, then given up on
      expect(relay.counters.deadLetters).toBe(2);
    });
    await relay.drain();
    expect(rec.events.map((e) => e.aggregateId)).toContain(after.id);
    expect(rec.events.map((e) => e.aggregateId)).not.toContain(refused.id);
    const all = await relay.store.deadLetters();
    expect(all).toHaveLength(2);
    expect(all.find((l) => l.image.includes(refused.id))).toMatchObject({ attempts: 3, error: 'injected publish failure' });
    expect(relay.counters.snapshot()).toMatchObject({ deadLetters: 2, retries: 2 });
  });
});

describe('Customer.stats, kept by the relay from the stream', () => {
  it('counts each order once, also when the events are delivered again', async () => {
    const customer = await createCustomer('Stats Sofía');
    await stack.settled(); // staff made it: the customer's own `me` reads eventually (docs/consistency.md)
    const headers = bearer(await tokens.customer(customer.id));
    expect(dataOf(await stack.gql(STATS, {}, headers)).me.stats).toEqual({ orderCount: 0, lifetimeCents: 0, asOf: null });
    const a = await placeOrder(customer.id);
    const b = await placeOrder(customer.id, undefined, [{ sku: 'MUG-2', quantity: 3 }]);
    await move(a.id, 'CANCELLED'); // still an order placed
    const first = relayOver(stack, streams, recorder(), 'stats-a');
    await first.drain();
    await stack.settled(); // the relay wrote the stats, not the customer: its `me` reads them eventually
    const expected = { orderCount: 2, lifetimeCents: a.totalCents + b.totalCents, asOf: expect.any(String) };
    expect(dataOf(await stack.gql(STATS, {}, headers)).me.stats).toEqual(expected);
    // Another relay (another checkpoint) delivers every event again: the sequence guard counts none twice.
    const again = relayOver(stack, streams, recorder(), 'stats-b');
    await again.drain();
    await stack.settled();
    expect(again.counters.statsDuplicates).toBeGreaterThanOrEqual(2);
    expect(dataOf(await stack.gql(STATS, {}, headers)).me.stats).toEqual(expected);
    // Read with the profile the screen reads: no request of its own.
    const { wire } = await stack.measure(`{ me { name stats { orderCount } orders(first: 5) { nodes { id } } } }`, {}, headers);
    expect(wire.map((r) => r.operation)).toEqual(['Query']);
    // customerByEmail reads GSI1, which does not project the stats: the profile is read for them.
    const byEmail = dataOf(
      await stack.gql(`query($e: String!) { customerByEmail(email: $e) { stats { orderCount lifetimeCents } } }`, { e: customer.email }),
    );
    expect(byEmail.customerByEmail.stats).toEqual({ orderCount: 2, lifetimeCents: expected.lifetimeCents });
  });
});
