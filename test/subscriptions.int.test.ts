/**
 * Live updates over real websockets: the real server (startStack), real signed tokens, graphql-ws's
 * own client on `ws`. Events are published into the server's hub as the relay publishes them (a
 * test with a real mutation through the relay is the relay's suite).
 */
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import * as live from './support/live';
import { movedEvent, placedEvent, subscribe, until, type LiveConnection, type LiveSubscription } from './support/live';
import { issuerFile, tokens } from './support/auth';
import { devClaims } from '../src/auth/dev-issuer';
import { readConfig } from '../src/boot/config';
import { trustedDocuments } from '../src/admission/documents';
import { World, type CustomerFixture } from './support/fixtures';
import { newId } from '../src/model';
import { createApollo } from '../src/http/server';
import { createContext } from '../src/request/context';
import { testAuthenticator } from './support/auth';
import { HeaderMap } from '@apollo/server';
import pino from 'pino';

const LIMITS = { maxSubscriptionsPerConnection: 3, maxConnectionsPerPrincipal: 2, maxBufferedEvents: 5 };
let stack: Stack;
let a: CustomerFixture;
let b: CustomerFixture;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack({ subscriptions: LIMITS, corsOrigins: ['http://localhost:*'] });
  const world = new World(stack);
  a = await world.customer({ orders: 2, status: () => 'PENDING' });
  b = await world.customer({ orders: 1, status: () => 'PENDING' });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await stack?.close();
});

/** A connection of `s` (this suite's stack by default), disposed after the suite. */
function connect(token: string | undefined, s: Stack = stack): LiveConnection {
  const connection = live.connect(s, token);
  clients.push(connection.client);
  return connection;
}
const listening = (n: number, s: Stack = stack) => live.listening(s, n);
const placed = placedEvent;
const moved = movedEvent;

const FIELDS = 'eventId type sequence orderId customerId status previousStatus totalCents';

describe('subscriptions over graphql-ws', () => {
  it('delivers each principal its own events, in order, each event once', async () => {
    const [orderA, orderA2] = a.orders.map((order) => order.id) as [string, string];
    const orderB = b.orders[0]!.id;
    const ca = connect(await tokens.customer(a.customer.id));
    const cb = connect(await tokens.customer(b.customer.id));
    const staff = connect(await tokens.staff());
    const mineA = subscribe(ca.client, `subscription { myOrderEvents { ${FIELDS} order { id status } } }`);
    const mineB = subscribe(cb.client, `subscription { myOrderEvents { ${FIELDS} } }`);
    const paid = subscribe(staff.client, `subscription($s: OrderStatus!) { ordersByStatusEvents(status: $s) { ${FIELDS} } }`, {
      s: 'PAID',
    });
    const one = subscribe(staff.client, `subscription($id: ID!) { orderUpdated(id: $id) { ${FIELDS} } }`, { id: orderA });
    await listening(4);

    const events = [
      placed(a.customer.id, orderA2),
      moved(a.customer.id, orderA, 'PENDING', 'PAID'),
      moved(b.customer.id, orderB, 'PENDING', 'PAID'),
      moved(a.customer.id, orderA, 'PAID', 'SHIPPED'),
    ];
    for (const event of events) stack.hub.publish(event);
    stack.hub.publish({ ...events[1]! }); // delivered again upstream (at least once): heard once
    // Last, a marker each subscription hears (A's order to PAID again; B's order delivered): a
    // subscription's events arrive in order, so once its marker is in, nothing before it is still coming.
    const markers = [moved(a.customer.id, orderA, 'SHIPPED', 'PAID'), moved(b.customer.id, orderB, 'PAID', 'DELIVERED')];
    for (const marker of markers) stack.hub.publish(marker);
    const last = (sub: LiveSubscription, field: string) => sub.events.at(-1)?.[field].eventId;
    await until(
      () =>
        last(mineA, 'myOrderEvents') === markers[0]!.eventId &&
        last(mineB, 'myOrderEvents') === markers[1]!.eventId &&
        last(paid, 'ordersByStatusEvents') === markers[0]!.eventId &&
        last(one, 'orderUpdated') === markers[0]!.eventId,
      'each subscription’s marker',
    );

    const ids = (sub: LiveSubscription, field: string) => sub.events.slice(0, -1).map((data) => data[field].eventId);
    expect(ids(mineA, 'myOrderEvents')).toEqual([events[0]!.eventId, events[1]!.eventId, events[3]!.eventId]);
    expect(ids(mineB, 'myOrderEvents')).toEqual([events[2]!.eventId]);
    expect(ids(paid, 'ordersByStatusEvents')).toEqual([events[1]!.eventId, events[2]!.eventId]);
    expect(ids(one, 'orderUpdated')).toEqual([events[1]!.eventId, events[3]!.eventId]);
    expect(mineA.events[0].myOrderEvents).toMatchObject({
      type: 'OrderPlaced',
      orderId: orderA2,
      customerId: a.customer.id,
      status: 'PENDING',
      previousStatus: null,
      totalCents: 1234,
      order: { id: orderA2, status: 'PENDING' },
    });
    expect(mineA.events[1].myOrderEvents).toMatchObject({ type: 'OrderStatusChanged', status: 'PAID', previousStatus: 'PENDING' });
    expect(stack.hub.stats().duplicates).toBeGreaterThanOrEqual(1);
    for (const sub of [mineA, mineB, paid, one]) sub.stop();
    await listening(0);
  });

  it("refuses orderUpdated on another customer's order exactly as on a missing one", async () => {
    const ca = connect(await tokens.customer(a.customer.id));
    const theirs = subscribe(ca.client, `subscription($id: ID!) { orderUpdated(id: $id) { eventId } }`, {
      id: b.orders[0]!.id.toLowerCase(),
    });
    const missingId = newId();
    const missing = subscribe(ca.client, `subscription($id: ID!) { orderUpdated(id: $id) { eventId } }`, { id: missingId.toLowerCase() });
    await Promise.all([theirs.done, missing.done]);
    expect(theirs.errors).toEqual([
      expect.objectContaining({ message: `no order with id ${b.orders[0]!.id}`, extensions: { code: 'NOT_FOUND' } }),
    ]);
    expect(missing.errors).toEqual([
      expect.objectContaining({ message: `no order with id ${missingId}`, extensions: { code: 'NOT_FOUND' } }),
    ]);
    expect(stack.hub.stats().listeners).toBe(0);
  });

  it('keeps the staff feed for staff, and checks arguments and limits like HTTP', async () => {
    const ca = connect(await tokens.customer(a.customer.id));
    const feed = subscribe(ca.client, 'subscription { ordersByStatusEvents(status: PAID) { eventId } }');
    const query = subscribe(ca.client, '{ __typename }');
    const deep = subscribe(
      ca.client,
      'subscription { myOrderEvents { order { customer { orders { nodes { customer { orders { nodes { customer { id } } } } } } } } } }',
    );
    await Promise.all([feed.done, query.done, deep.done]);
    expect(feed.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(query.errors[0]).toMatchObject({
      message: expect.stringMatching(/Only subscriptions run over WebSocket/),
      extensions: { code: 'BAD_REQUEST' },
    });
    expect(deep.errors[0]).toMatchObject({ message: expect.stringMatching(/depth/i), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  it('closes the socket with 4401 for a bad token or none', async () => {
    for (const token of ['not-a-token', undefined]) {
      const connection = connect(token);
      const sub = subscribe(connection.client, 'subscription { myOrderEvents { eventId } }');
      expect(await connection.closed).toMatchObject({ code: 4401, reason: expect.stringMatching(/^Unauthorized/) });
      await sub.done;
    }
  });

  it('closes a socket with 4401 when its token expires', async () => {
    const names = readConfig({ DEV_ISSUER_FILE: issuerFile }).auth;
    // `exp` counts whole seconds from a whole-second `iat`: a 3 s token lives 2-3 s, long enough for the
    // subscription to start on a loaded machine (a 1 s token could expire before it did).
    const connection = connect(await tokens.signed(devClaims(names, { customerId: a.customer.id }), 3));
    const sub = subscribe(connection.client, 'subscription { myOrderEvents { eventId } }');
    await listening(1);
    expect(await connection.closed).toMatchObject({ code: 4401, reason: 'Unauthorized: token expired' });
    await sub.done;
    await listening(0);
  });

  it('limits subscriptions per connection and connections per principal', async () => {
    const token = await tokens.customer(b.customer.id);
    const first = connect(token);
    const subs = Array.from({ length: LIMITS.maxSubscriptionsPerConnection }, () =>
      subscribe(first.client, 'subscription { myOrderEvents { eventId } }'),
    );
    await listening(LIMITS.maxSubscriptionsPerConnection);
    const extra = subscribe(first.client, 'subscription { myOrderEvents { eventId } }');
    await extra.done;
    expect(extra.errors[0]).toMatchObject({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } });

    const second = connect(token);
    const other = subscribe(second.client, 'subscription { myOrderEvents { eventId } }');
    await listening(LIMITS.maxSubscriptionsPerConnection + 1);
    const third = connect(token);
    subscribe(third.client, 'subscription { myOrderEvents { eventId } }');
    expect(await third.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/Too many connections/) });
    for (const sub of [...subs, other]) sub.stop();
    await listening(0);
  });

  it('drops a subscriber that falls more than the buffer behind, closing its socket with 1013', async () => {
    const connection = connect(await tokens.customer(a.customer.id));
    const sub = subscribe(connection.client, 'subscription { myOrderEvents { eventId } }');
    await listening(1);
    // A burst the consumer cannot pull in between: the buffer bound is reached at once.
    for (let i = 0; i <= LIMITS.maxBufferedEvents + 1; i++) stack.hub.publish(placed(a.customer.id, newId()));
    expect(await connection.closed).toMatchObject({ code: 1013, reason: expect.stringMatching(/too slow/) });
    await sub.done;
    expect(stack.hub.stats().listeners).toBe(0);
  });

  it('refuses a websocket from a browser origin that CORS refuses', async () => {
    const status = (origin: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(stack.server.url.replace(/^http/, 'ws'), 'graphql-transport-ws', { origin });
        socket.once('open', () => {
          socket.close();
          resolve(101);
        });
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.once('error', () => undefined);
      });
    expect(await status('https://evil.example')).toBe(403);
    expect(await status('http://localhost:3000')).toBe(101);
  });

  it('refuses a subscription over HTTP, on the server and on Lambda, saying where to subscribe', async () => {
    const response = await stack.gql('subscription { myOrderEvents { eventId } }');
    expect(response.status).toBe(400);
    expect(response.errors![0]).toMatchObject({
      message: expect.stringMatching(/^Subscriptions are not supported over HTTP: subscribe over WebSocket/),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const lambda = createApollo(
      { table: stack.table, authenticate: await testAuthenticator(), production: true, logger: pino({ level: 'silent' }) },
      [],
      'lambda',
    );
    await lambda.start();
    const headers = new HeaderMap([['content-type', 'application/json']]);
    const result = await lambda.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body: { query: 'subscription { myOrderEvents { eventId } }' } },
      context: async () =>
        createContext(stack.table, { principal: { kind: 'staff', subject: 's', customerId: undefined }, explain: false }),
    });
    await lambda.stop();
    expect(result.status).toBe(400);
    const body = JSON.parse((result.body as { string: string }).string);
    expect(body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^Subscriptions are not supported by this deployment.*EventBridge/),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });
});

describe('shutdown', () => {
  // A subscription never ends by itself: that close() resolves at all shows it does not wait for one.
  it('closes subscription sockets with 1001 and stops without waiting for them', async () => {
    const own = await startStack({ stopGracePeriodMillis: 500 });
    try {
      const connection = connect(await tokens.staff(), own);
      const sub = subscribe(connection.client, 'subscription { ordersByStatusEvents(status: SHIPPED) { eventId } }');
      await listening(1, own);
      await own.server.close();
      expect(await connection.closed).toMatchObject({ code: 1001 });
      await sub.done;
      expect(own.hub.stats().listeners).toBe(0);
    } finally {
      await own.close();
    }
  });
});

// The read quota and the held budget of subscriptions (paid before they read): test/subscriptions-quotas.int.test.ts.

describe('trusted documents', () => {
  it('runs, in production with a manifest, only a manifest hash over WebSocket too, as HTTP does', async () => {
    const SUB = 'subscription { myOrderEvents { eventId } }';
    const hash = createHash('sha256').update(SUB).digest('hex');
    const own = await startStack({ production: true, trustedDocuments: trustedDocuments({ [hash]: SUB }) });
    try {
      const connection = connect(await tokens.customer(a.customer.id), own);
      const text = subscribe(connection.client, SUB); // the manifest's own text, sent as text
      await text.done;
      expect(text.errors).toEqual([expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' } })]);

      const byHash: LiveSubscription = { events: [], errors: [], done: Promise.resolve(), stop: () => {} };
      byHash.stop = connection.client.subscribe(
        { query: '', extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
        { next: (result) => byHash.events.push(result.data), error: (error) => byHash.errors.push(error), complete: () => {} },
      );
      await listening(1, own);
      own.hub.publish(placed(a.customer.id, a.orders[0]!.id));
      await until(() => byHash.events.length === 1, 'the event');
      expect(byHash.errors).toEqual([]);
      byHash.stop();
    } finally {
      await own.close();
    }
  });
});
