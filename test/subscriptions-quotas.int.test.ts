/**
 * Subscriptions pay before they read (src/live/paid.ts): the per-event bound, the budget a
 * principal's open subscriptions hold together, the start and each event taken from the read
 * bucket before the read. Real server, engine, tokens and graphql-ws client; `engine.wire` counts
 * the DynamoDB requests. Buckets run on a clock that stands still (`now: () => 0`: no refill), so
 * what is asserted is counts, never timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { tokens } from './support/auth';
import { World, type CustomerFixture } from './support/fixtures';
import { connect, estimateOf, listening, movedEvent, subscribe, until, type LiveConnection } from './support/live';
import { newId } from '../src/model';
import { createQuotas } from '../src/admission/quotas';
import { LIMITS } from '../src/admission/limits';
import { SUBSCRIPTION_DEFAULTS } from '../src/hub/live';

const ORDER_UPDATED = 'subscription($id: ID!) { orderUpdated(id: $id) { eventId } }';
/** The order screen of an event: admitted, near the per-event bound. */
const SCREEN =
  'subscription($id: ID!) { orderUpdated(id: $id) { eventId order { status totalCents lines { sku quantity } customer { name addresses { label } } } } }';
/** The measured attack: one event walks to the customer's other orders and their lines. */
const WALK = 'subscription { myOrderEvents { order { customer { orders(first: 98) { nodes { lines { sku } } } } } } }';
const READING = 'subscription($id: ID!) { orderUpdated(id: $id) { eventId order { id lines { lineNo } } } }';

const moved = (customerId: string, orderId: string) => movedEvent(customerId, orderId);

const connections: LiveConnection[] = [];
function open(stack: Stack, token: string): LiveConnection {
  const connection = connect(stack, token);
  connections.push(connection);
  return connection;
}
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.client.dispose()));
});

describe('the cost model of a subscription', () => {
  it('estimates the start apart from each event: orderUpdated reads one order to start, the others nothing', () => {
    const screen = estimateOf(SCREEN, { id: 'x' });
    expect(screen.startReads).toBeGreaterThan(0);
    expect(screen.startCost).toBe(screen.startReads);
    expect(screen.cost).toBeLessThanOrEqual(LIMITS.maxEventCost);
    expect(estimateOf('subscription { myOrderEvents { eventId } }')).toMatchObject({ startReads: 0, startCost: 0, cost: 1 });
    expect(estimateOf('{ me { name } }')).toMatchObject({ startReads: 0, startCost: 0 });
    // The walk fits HTTP's bound, not an event's: that is what let 50 of them read 466,102 items on one write.
    expect(estimateOf(WALK).cost).toBeLessThanOrEqual(LIMITS.maxCost);
    expect(estimateOf(WALK).cost).toBeGreaterThan(LIMITS.maxEventCost);
    // The held budget holds at least one subscription at the per-event bound, and far less than the read bucket.
    expect(SUBSCRIPTION_DEFAULTS.maxHeldEventCost).toBeGreaterThanOrEqual(LIMITS.maxEventCost);
  });
});

describe("the read quota, HTTP's too", () => {
  it("takes each event's cost from the subscriber's read quota, HTTP's too, before it executes: past it the event is RATE_LIMITED, reads nothing, and the subscription ends", async () => {
    const READING = 'subscription { myOrderEvents { eventId order { id lines { lineNo } } } }';
    const FREE = 'subscription { myOrderEvents { eventId } }'; // reads nothing: costs its one object field an event
    const [reading$, free$] = [estimateOf(READING).cost, estimateOf(FREE).cost];
    // Two reading events, the free subscription's ten, and 2 units over (less than `{ me { name } }`'s 3),
    // on a clock that stands still (no refill): counts, not timings.
    const own = await startStack({
      buckets: createQuotas({ readsPerMinute: 2 * reading$ + 10 * free$ + 2, writesPerMinute: 1e12 }, { now: () => 0 }),
    });
    try {
      const world = new World(own);
      const c = await world.customer({ orders: 1, status: () => 'PENDING' });
      const orderId = c.orders[0]!.id;
      const connection = open(own, await tokens.customer(c.customer.id));
      const reading = subscribe(connection.client, READING);
      const free = subscribe(connection.client, FREE);
      await listening(own, 2);
      own.engine.wire.reset();
      for (let i = 0; i < 10; i++) own.hub.publish(moved(c.customer.id, orderId));
      await reading.done; // ended by the server
      await until(() => free.events.length === 10, 'the free subscription’s events');

      // Each event paid its estimate before it read the order (its header and lines): the quota paid two.
      expect(reading.events.length).toBe(2);
      for (const data of reading.events) expect(data.myOrderEvents.order).toEqual({ id: orderId, lines: expect.any(Array) });
      // The refused third read nothing: the wire holds the two paid events' reads, one Query each.
      expect(own.engine.wire.requests().map((request) => request.operation)).toEqual(['Query', 'Query']);
      expect(reading.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^Read quota exceeded/),
          extensions: { code: 'RATE_LIMITED', quota: 'read', retryAfterSeconds: expect.any(Number) },
        }),
      ]);
      // Starting a subscription reads too (orderUpdated reads the order to check it is the caller's): paid the
      // same way, before the read, so the spent quota refuses it with no request.
      own.engine.wire.reset();
      const started = subscribe(connection.client, 'subscription($id: ID!) { orderUpdated(id: $id) { eventId } }', { id: orderId });
      await started.done;
      expect(started.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })]);
      expect(own.engine.wire.requests()).toEqual([]);
      await listening(own, 1); // the free subscription alone: the refused one never joined the hub
      // One bucket for both transports: the same principal's HTTP reads are refused now, before a request.
      own.engine.wire.reset();
      const http = await own.gql('{ me { name } }', {}, { authorization: `Bearer ${await tokens.customer(c.customer.id)}` });
      expect(http.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(own.engine.wire.requests()).toEqual([]);
      free.stop();
      await connection.client.dispose();
    } finally {
      await own.close();
    }
  });
});

describe('paying before reading', () => {
  let stack: Stack;
  let a: CustomerFixture;
  let b: CustomerFixture;
  const start = estimateOf(READING, { id: 'x' }).startCost;
  const event = estimateOf(READING, { id: 'x' }).cost;
  // One start and one event, less one unit: the start is paid, its first event is not.
  const BUCKET = start + event - 1;
  const buckets = createQuotas({ readsPerMinute: BUCKET, writesPerMinute: 1e12 }, { now: () => 0 });

  beforeAll(async () => {
    // Held budget: one READING subscription at a time, so a leak would show as TOO_MANY_SUBSCRIPTIONS.
    stack = await startStack({ buckets, subscriptions: { maxHeldEventCost: event } });
    const world = new World(stack);
    a = await world.customer({ orders: 1, status: () => 'PENDING' });
    b = await world.customer({ orders: 1, status: () => 'PENDING' });
  }, 60_000);
  afterAll(() => stack?.close());

  it("with a spent read bucket, refuses orderUpdated of another customer's order and of a missing id alike, with no request", async () => {
    const token = await tokens.customer(a.customer.id);
    // Spend a's bucket over HTTP (the same buckets) until what is left cannot pay an orderUpdated start.
    const spend = '{ me { name orders(first: 100) { nodes { id } } } }';
    const times = Math.ceil((BUCKET - start + 1) / estimateOf(spend).cost);
    expect(times * estimateOf(spend).cost).toBeLessThanOrEqual(BUCKET);
    for (let i = 0; i < times; i++) expect((await stack.gql(spend, {}, { authorization: `Bearer ${token}` })).errors).toBeUndefined();

    const connection = open(stack, token);
    const answers = [];
    for (const id of [b.orders[0]!.id, newId()]) {
      stack.engine.wire.reset();
      const refused = subscribe(connection.client, ORDER_UPDATED, { id });
      await refused.done;
      expect(stack.engine.wire.requests(), 'DynamoDB requests of a refused start').toEqual([]);
      expect(refused.events).toEqual([]);
      answers.push(refused.errors);
    }
    expect(answers[0]).toEqual([
      {
        message: expect.stringMatching(/^Read quota exceeded/),
        extensions: { code: 'RATE_LIMITED', quota: 'read', retryAfterSeconds: expect.any(Number) },
      },
    ]);
    expect(answers[1]).toEqual(answers[0]); // the same message, code and retry: existence is not told
    expect(stack.hub.stats().listeners).toBe(0);
  });

  it('refuses an event its bucket cannot pay before it executes: RATE_LIMITED, nothing read, the subscription ended and released', async () => {
    const c = await new World(stack).customer({ orders: 1, status: () => 'PENDING' });
    const orderId = c.orders[0]!.id;
    const connection = open(stack, await tokens.customer(c.customer.id));
    const sub = subscribe(connection.client, READING, { id: orderId });
    await listening(stack, 1); // the start was paid (its order read): `event - 1` units are left
    stack.engine.wire.reset();
    stack.hub.publish(moved(c.customer.id, orderId));
    await sub.done; // ended by the server
    // A request after it (staff, over HTTP): had the event read the order, that read would be on the wire by now.
    expect((await stack.gql('{ products(first: 1) { nodes { id } } }')).errors).toBeUndefined();
    const ofTheOrder = stack.engine.wire.requests().filter((request) => JSON.stringify(request.body).includes(orderId));
    expect(ofTheOrder, 'DynamoDB requests of the refused event').toEqual([]);
    expect(sub.events).toEqual([]);
    expect(sub.errors).toEqual([
      {
        message: expect.stringMatching(/^Read quota exceeded/),
        extensions: { code: 'RATE_LIMITED', quota: 'read', retryAfterSeconds: expect.any(Number) },
      },
    ]);
    expect(stack.hub.stats().listeners).toBe(0);

    // The ended subscription released what it held (the budget holds one READING): it may subscribe again.
    const again = subscribe(connection.client, READING, { id: orderId });
    await listening(stack, 1);
    again.stop();
    await listening(stack, 0);
    expect(again.errors).toEqual([]);
  });
});

describe('an event larger than a whole bucket', () => {
  it('is refused at subscribe time, for good (waiting would not help), before any read', async () => {
    const event = estimateOf(READING, { id: 'x' }).cost;
    const own = await startStack({ buckets: createQuotas({ readsPerMinute: event - 1, writesPerMinute: 1e12 }, { now: () => 0 }) });
    try {
      const c = await new World(own).customer({ orders: 1, status: () => 'PENDING' });
      const connection = open(own, await tokens.customer(c.customer.id));
      own.engine.wire.reset();
      const sub = subscribe(connection.client, READING, { id: c.orders[0]!.id });
      await sub.done;
      expect(own.engine.wire.requests()).toEqual([]);
      expect(sub.errors).toEqual([
        {
          message: expect.stringMatching(/more than a whole minute's read quota .*: it can never pass/),
          extensions: { code: 'RATE_LIMITED', quota: 'read', retryable: false },
        },
      ]);
      await connection.client.dispose();
    } finally {
      await own.close();
    }
  });
});

describe('the per-event bound and the held budget', () => {
  let stack: Stack;
  let c: CustomerFixture;
  const screen = estimateOf(SCREEN, { id: 'x' }).cost;

  beforeAll(async () => {
    stack = await startStack(); // the default limits: 5 sockets × 10 subscriptions, maxHeldEventCost
    c = await new World(stack).customer({ orders: 1, status: () => 'PENDING' });
  }, 60_000);
  afterAll(() => stack?.close());

  it('refuses at subscribe time, before any read, a subscription whose event may cost more than maxEventCost', async () => {
    const connection = open(stack, await tokens.customer(c.customer.id));
    stack.engine.wire.reset();
    const walk = subscribe(connection.client, WALK);
    await walk.done;
    expect(walk.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Subscription too costly: each event may cost \d+, more than the limit of 250 an event/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
    expect(stack.engine.wire.requests()).toEqual([]);
    expect(stack.hub.stats().listeners).toBe(0);
    // The order screen of an event fits.
    const fits = subscribe(connection.client, SCREEN, { id: c.orders[0]!.id });
    await listening(stack, 1);
    fits.stop();
    await listening(stack, 0);
  });

  it("refuses, before any read, the subscriptions that would take one principal's held per-event cost past its budget: 50 over 5 sockets", async () => {
    const token = await tokens.customer(c.customer.id);
    const sockets = Array.from({ length: SUBSCRIPTION_DEFAULTS.maxConnectionsPerPrincipal }, () => open(stack, token));
    const held = Math.floor(SUBSCRIPTION_DEFAULTS.maxHeldEventCost / screen);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(50);
    const variables = { id: c.orders[0]!.id };
    const admitted = Array.from({ length: held }, (_, i) => subscribe(sockets[i % sockets.length]!.client, SCREEN, variables));
    await listening(stack, held);

    stack.engine.wire.reset();
    const refused = Array.from({ length: 50 - held }, (_, i) => subscribe(sockets[(held + i) % sockets.length]!.client, SCREEN, variables));
    await Promise.all(refused.map((sub) => sub.done));
    expect(stack.engine.wire.requests(), 'DynamoDB requests of the refused subscriptions').toEqual([]);
    for (const sub of refused) {
      expect(sub.errors).toEqual([
        {
          message: `Too many subscriptions held at once: with this one your open subscriptions may cost ${(held + 1) * screen} an event together, more than ${SUBSCRIPTION_DEFAULTS.maxHeldEventCost}; complete one first`,
          extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
        },
      ]);
    }
    expect(stack.hub.stats().listeners).toBe(held);

    // The held ones run: one event reaches each.
    stack.hub.publish(moved(c.customer.id, c.orders[0]!.id));
    await expect.poll(() => admitted.every((sub) => sub.events.length === 1)).toBe(true);
    for (const sub of admitted) sub.stop();
    await listening(stack, 0);
  });

  it('releases what a subscription held when it completes, fails to start, or its socket closes', async () => {
    const token = await tokens.customer(c.customer.id);
    const variables = { id: c.orders[0]!.id };
    const held = Math.floor(SUBSCRIPTION_DEFAULTS.maxHeldEventCost / screen);
    const first = open(stack, token);
    const second = open(stack, token);
    const fill = (connection: LiveConnection, n: number) =>
      Array.from({ length: n }, () => subscribe(connection.client, SCREEN, variables));
    const refusedNow = async (connection: LiveConnection) => {
      const extra = subscribe(connection.client, SCREEN, variables);
      await extra.done;
      return extra.errors.map((error) => error.extensions.code);
    };

    // Full: the first socket holds all but one, the second the last one.
    const onFirst = fill(first, held - 1);
    const [last] = fill(second, 1);
    await listening(stack, held);
    expect(await refusedNow(first)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);

    // The client's `complete` releases: one more fits again, and then no more.
    last!.stop();
    await listening(stack, held - 1);
    const replaced = fill(second, 1);
    await listening(stack, held);
    expect(await refusedNow(second)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);

    // A start that fails (NOT_FOUND: a missing order) holds nothing afterwards.
    replaced[0]!.stop();
    await listening(stack, held - 1);
    const missing = subscribe(second.client, SCREEN, { id: newId() });
    await missing.done;
    expect(missing.errors.map((error) => error.extensions.code)).toEqual(['NOT_FOUND']);
    fill(second, 1);
    await listening(stack, held);

    // Closing a socket releases all it held: the other socket may hold as many again.
    await first.client.dispose();
    await listening(stack, 1);
    const refill = fill(second, held - 1);
    await listening(stack, held);
    expect(await refusedNow(second)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    for (const sub of [...onFirst, ...refill]) sub.stop();
    await second.client.dispose();
    await listening(stack, 0);

    // Nothing leaked: a new socket holds the whole budget again.
    const fresh = open(stack, token);
    const all = fill(fresh, held);
    await listening(stack, held);
    expect(await refusedNow(fresh)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    for (const sub of all) sub.stop();
    await listening(stack, 0);
  });
});
