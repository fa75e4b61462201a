/**
 * Apollo Client 4 with its normalized cache, over the real server (HTTP, a real customer token):
 * the customer screen, its orders paged with `fetchMore` and `relayStylePagination` on the `edges`
 * form (no gap, no duplicate across pages), and mutations whose results update the cache without
 * a refetch: a replaced address (same id) in place, a new or removed address by `update`, a
 * renamed customer. The requests the client sends are counted on its own fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { filter, firstValueFrom } from 'rxjs';
import { startStack, type Stack } from '../support/stack';
import { bearer, tokens } from '../support/auth';
import { buildCustomer, customerItems, loadItems, type CustomerFixture } from '../support/fixtures';
import { addressNodeId } from '../../src/model';
import {
  PUT_ADDRESS as PUT_ADDRESS_SOURCE,
  REMOVE_ADDRESS as REMOVE_ADDRESS_SOURCE,
  RENAME as RENAME_SOURCE,
  SCREEN as SCREEN_SOURCE,
  type Screen,
} from './documents';

const SCREEN = gql(SCREEN_SOURCE);
const PUT_ADDRESS = gql(PUT_ADDRESS_SOURCE);
const REMOVE_ADDRESS = gql(REMOVE_ADDRESS_SOURCE);
const RENAME = gql(RENAME_SOURCE);

let stack: Stack;
let fixture: CustomerFixture;
let client: ApolloClient;
let sent = 0;

beforeAll(async () => {
  stack = await startStack();
  fixture = buildCustomer({ name: 'Ana', addresses: 2, orders: 25 });
  await loadItems(stack, customerItems(fixture));
  const headers = bearer(await tokens.customer(fixture.customer.id));
  const counting: typeof fetch = (input, init) => {
    sent++;
    return fetch(input, init);
  };
  client = new ApolloClient({
    link: new HttpLink({ uri: stack.server.url, headers, fetch: counting }),
    // The server's list of addresses is whole each time it is read: incoming replaces existing.
    cache: new InMemoryCache({
      typePolicies: { Customer: { fields: { orders: relayStylePagination(['month']), addresses: { merge: false } } } },
    }),
  });
});
afterAll(async () => {
  await stack?.close();
});

const screen = () => client.readQuery<Screen>({ query: SCREEN })!.me;

describe('Apollo Client over the real server', () => {
  it('loads the customer screen, then pages every order with fetchMore: no gap, no duplicate', async () => {
    const watched = client.watchQuery<Screen>({ query: SCREEN });
    const subscription = watched.subscribe({});
    const first = await firstValueFrom(watched.pipe(filter((result) => !result.loading)));
    expect(first.data?.me).toMatchObject({
      id: fixture.customer.id,
      name: 'Ana',
      addresses: fixture.addresses.map((a) => ({
        id: addressNodeId({ customerId: fixture.customer.id, label: a.label }),
        label: a.label,
        city: a.city,
      })),
    });
    expect(screen().orders.edges).toHaveLength(10);
    sent = 0;
    let pages = 1;
    while (screen().orders.pageInfo.hasNextPage) {
      await watched.fetchMore({ variables: { after: screen().orders.pageInfo.endCursor } });
      pages++;
    }
    expect(pages).toBe(3);
    expect(sent).toBe(2);
    // The merged list, read from the cache: every order once, newest first.
    expect(screen().orders.edges.map((edge) => edge.node.id)).toEqual(fixture.orders.map((order) => order.id));
    expect(screen().orders.pageInfo.hasNextPage).toBe(false);
    subscription.unsubscribe();
  });

  it('updates the cache from mutation results, without a refetch', async () => {
    const customerId = fixture.customer.id;
    const cacheId = client.cache.identify({ __typename: 'Customer', id: customerId });
    sent = 0;

    // A replaced address keeps its id: the normalized entity changes in place.
    const replaced = fixture.addresses[0]!;
    await client.mutate({ mutation: PUT_ADDRESS, variables: { customerId, input: { ...replaced, city: 'Sevilla' } } });
    expect(screen().addresses.find((a) => a.label === replaced.label)?.city).toBe('Sevilla');

    // A new address: its result is linked into the customer's list.
    const added = { label: 'office', street: 'Rua Augusta 1', city: 'Lisboa', postalCode: '1100-048', country: 'PT' };
    await client.mutate<{ putAddress: { __typename: 'Address'; id: string } }>({
      mutation: PUT_ADDRESS,
      variables: { customerId, input: added },
      update(cache, { data }) {
        cache.modify({
          id: cacheId,
          fields: {
            addresses: (existing: readonly { __ref: string }[], { toReference }) => {
              const ref = toReference(data!.putAddress)!;
              return existing.some((a) => a.__ref === ref.__ref) ? existing : [...existing, ref];
            },
          },
        });
      },
    });
    expect(screen().addresses.map((a) => a.label)).toEqual([...fixture.addresses.map((a) => a.label), 'office']);

    // A removed one: the result is a Boolean, so the client drops the entity it knows by id.
    const removed = fixture.addresses[1]!;
    const removedId = screen().addresses.find((a) => a.label === removed.label)!.id;
    await client.mutate<{ removeAddress: boolean }>({
      mutation: REMOVE_ADDRESS,
      variables: { customerId, label: removed.label },
      update(cache, { data }) {
        if (data?.removeAddress) cache.evict({ id: cache.identify({ __typename: 'Address', id: removedId }) });
        cache.gc();
      },
    });
    expect(screen().addresses.map((a) => a.label)).toEqual([fixture.addresses[0]!.label, 'office']);

    // A renamed customer: the Customer entity, shared by every query that shows it.
    await client.mutate({ mutation: RENAME, variables: { id: customerId, name: 'Ana María' } });
    expect(screen().name).toBe('Ana María');

    // Four mutations, four requests: nothing was refetched, and the screen is answered from the cache.
    expect(sent).toBe(4);
    const again = await client.query<Screen>({ query: SCREEN, fetchPolicy: 'cache-first' });
    expect(again.data?.me.addresses.map((a) => a.city)).toEqual(['Sevilla', 'Lisboa']);
    expect(sent).toBe(4);

    // And the cache agrees with the server.
    const fresh = await client.query<Screen>({ query: SCREEN, fetchPolicy: 'network-only' });
    expect(fresh.data?.me.addresses).toEqual(screen().addresses);
    expect(fresh.data?.me.name).toBe('Ana María');
  });
});
