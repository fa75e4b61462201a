/**
 * The whole path of a live update, nothing stubbed: a mutation over HTTP commits its outbox event
 * with its data; the faithful engine's stream carries it; the real relay reads it and publishes it
 * into the server's hub (as `npm start` wires them); a graphql-ws client subscribed on another
 * connection receives it, in commit order within each aggregate. Also: the customer screen's stats catch up.
 */
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf } from './support/graphql';
import { loadCatalog, MOVE, writeHelpers } from './support/write-path';
import { eventually, relayOver, streamsClient } from './support/relay';
import { hubPublisher } from '../src/relay/publishers';
import type { Relay } from '../src/relay/relay';

let stack: Stack;
let streams: DynamoDBStreamsClient;
let relay: Relay;
let client: Client | undefined;
const { createCustomer, placeOrder } = writeHelpers(() => stack);

beforeAll(async () => {
  stack = await startStack();
  streams = streamsClient(stack);
  await loadCatalog(stack);
  relay = relayOver(stack, streams, hubPublisher(stack.server.hub), 'hub');
  relay.start();
}, 60_000);

afterAll(async () => {
  await client?.dispose();
  await relay?.stop();
  streams?.destroy();
  await stack?.close();
});

const EVENT_FIELDS = 'type sequence orderId customerId status previousStatus totalCents';

describe('live updates through the relay', () => {
  it('a subscriber hears the orders another connection places and moves, in order', async () => {
    const customer = await createCustomer('Live Lucía');
    const token = await tokens.customer(customer.id);
    client = createClient({
      url: stack.server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { Authorization: `Bearer ${token}` },
    });
    const received: any[] = [];
    const errors: unknown[] = [];
    const listenersBefore = stack.server.hub.stats().listeners;
    client.subscribe(
      { query: `subscription { myOrderEvents { ${EVENT_FIELDS} } }` },
      {
        next: (result) => (result.errors ? errors.push(...result.errors) : received.push(result.data?.myOrderEvents)),
        error: (e) => errors.push(e),
        complete: () => undefined,
      },
    );
    await eventually(() => expect(stack.server.hub.stats().listeners).toBeGreaterThan(listenersBefore));

    // Another connection (HTTP, staff) places the order and moves it.
    const order = await placeOrder(customer.id);
    for (const status of ['PAID', 'SHIPPED']) dataOf(await stack.gql(MOVE, { id: order.id, status }));

    await eventually(() => expect(received).toHaveLength(3));
    expect(errors).toEqual([]);
    // In order within the order's aggregate (its partition key's records): placed (1), then each move.
    expect(received.map((e) => [e.type, e.sequence, e.previousStatus, e.status])).toEqual([
      ['OrderPlaced', 1, null, 'PENDING'],
      ['OrderStatusChanged', 2, 'PENDING', 'PAID'],
      ['OrderStatusChanged', 3, 'PAID', 'SHIPPED'],
    ]);
    expect(received.every((e) => e.orderId === order.id && e.customerId === customer.id)).toBe(true);
    expect(received.find((e) => e.type === 'OrderPlaced').totalCents).toBe(order.totalCents);

    // The stats the relay keeps show on the customer's own screen, eventually.
    const headers = bearer(token);
    await eventually(async () => {
      const me = dataOf(await stack.gql(`{ me { stats { orderCount lifetimeCents } } }`, {}, headers)).me;
      expect(me.stats).toEqual({ orderCount: 1, lifetimeCents: order.totalCents });
    });
  });
});
