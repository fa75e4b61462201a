/**
 * The "Live updates" client setups of docs/events.md, over the real server: Apollo Client with a split link
 * (GraphQLWsLink for subscriptions, HTTP for the rest) and urql with its subscriptionExchange, both on
 * graphql-ws's client. Each hears an event published into the server's hub, as the relay publishes it.
 */
import WebSocket from 'ws';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { ApolloClient, gql, HttpLink, InMemoryCache, split } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { tokens } from './support/auth';
import { World, type CustomerFixture } from './support/fixtures';
import { newId, type OutboxEvent } from '../src/model';

let stack: Stack;
let ana: CustomerFixture;
let token: string;
const sockets: WsClient[] = [];

beforeAll(async () => {
  stack = await startStack();
  ana = await new World(stack).customer({ orders: 1, status: () => 'PENDING' });
  token = await tokens.customer(ana.customer.id);
}, 60_000);

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.dispose()));
  await stack?.close();
});

const MY_ORDERS = 'subscription MyOrders { myOrderEvents { eventId type orderId status previousStatus order { id status } } }';

function paid(): OutboxEvent {
  const orderId = ana.orders[0]!.id;
  return {
    eventId: newId(),
    eventType: 'OrderStatusChanged',
    aggregateType: 'Order',
    aggregateId: orderId,
    sequence: 1,
    customerId: ana.customer.id,
    payload: { orderId, from: 'PENDING', to: 'PAID' },
    occurredAt: new Date().toISOString(),
    actor: { kind: 'staff', subject: 'test' },
  };
}

function wsClient(): WsClient {
  const url = stack.server.url.replace(/^http/, 'ws');
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${token}` } });
  sockets.push(client);
  return client;
}

async function listeners(n: number): Promise<void> {
  const end = Date.now() + 5_000;
  while (stack.hub.stats().listeners !== n) {
    if (Date.now() > end) throw new Error(`the hub never had ${n} listeners`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Publishes once the one subscription of the test has started on the server. */
async function publishOnceListening(event: OutboxEvent): Promise<void> {
  await listeners(1);
  stack.hub.publish(event);
}

describe('frontend clients of live updates', () => {
  it('Apollo Client: GraphQLWsLink for subscriptions, HTTP for the rest', async () => {
    const http = new HttpLink({ uri: stack.server.url, headers: { authorization: `Bearer ${token}` } });
    const ws = new GraphQLWsLink(wsClient());
    const client = new ApolloClient({
      link: split(
        ({ query }) => {
          const definition = getMainDefinition(query);
          return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
        },
        ws,
        http,
      ),
      cache: new InMemoryCache(),
    });
    const me = await client.query({ query: gql('{ me { id } }') });
    expect(me.data).toEqual({ me: { __typename: 'Customer', id: ana.customer.id } });
    const event = paid();
    const received = new Promise<any>((resolve, reject) => {
      const subscription = client.subscribe({ query: gql(MY_ORDERS) }).subscribe({
        next: (result) => {
          subscription.unsubscribe();
          resolve(result.data);
        },
        error: reject,
      });
    });
    await publishOnceListening(event);
    expect((await received).myOrderEvents).toMatchObject({ eventId: event.eventId, type: 'OrderStatusChanged', status: 'PAID' });
    client.stop();
    await listeners(0);
  });

  it("urql: the subscriptionExchange over graphql-ws's client", async () => {
    await listeners(0);
    const ws = wsClient();
    const client = new Client({
      url: stack.server.url,
      fetchOptions: () => ({ headers: { authorization: `Bearer ${token}` } }),
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
      ],
    });
    const event = paid();
    const received = new Promise<any>((resolve, reject) => {
      const { unsubscribe } = client.subscription(MY_ORDERS, {}).subscribe((result) => {
        unsubscribe();
        if (result.error) reject(result.error);
        else resolve(result.data);
      });
    });
    await publishOnceListening(event);
    expect((await received).myOrderEvents).toMatchObject({ eventId: event.eventId, orderId: ana.orders[0]!.id, previousStatus: 'PENDING' });
  });
});
