/**
 * urql with Graphcache (normalized, schema-aware from the committed `schema.graphql`) over the
 * real server (HTTP, a real customer token): the customer screen by urql's default GET (with the
 * header Apollo's CSRF prevention asks of a GET), its orders paged with `relayPagination` (no gap,
 * no duplicate), and mutations whose results update the cache without a refetch. Every entity has
 * an id, addresses included, so Graphcache keys them all and warns about nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { Client, fetchExchange, gql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { startStack, type Stack } from '../support/stack';
import { bearer, tokens } from '../support/auth';
import { buildCustomer, customerItems, loadItems, type CustomerFixture } from '../support/fixtures';
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
let client: Client;
const methods: string[] = [];
const warnings = vi.spyOn(console, 'warn');

beforeAll(async () => {
  stack = await startStack();
  fixture = buildCustomer({ name: 'Ana', addresses: 2, orders: 25 });
  await loadItems(stack, customerItems(fixture));
  const token = await tokens.customer(fixture.customer.id);
  const schema = introspectionFromSchema(buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')));
  const counting: typeof fetch = (input, init) => {
    methods.push(init?.method ?? 'GET');
    return fetch(input, init);
  };
  const cache = cacheExchange({
    schema,
    // Connections, edges, page infos and lines are parts of their parent, not entities.
    keys: { OrderConnection: () => null, OrderEdge: () => null, PageInfo: () => null, OrderLine: () => null },
    resolvers: { Customer: { orders: relayPagination() } },
    updates: {
      Mutation: {
        putAddress(result, args, cache) {
          const customer = cache.keyOfEntity({ __typename: 'Customer', id: args.customerId as string });
          const added = cache.keyOfEntity(result.putAddress as { __typename: string; id: string });
          const addresses = (cache.resolve(customer, 'addresses') as string[] | null) ?? [];
          if (!addresses.includes(added!)) cache.link(customer!, 'addresses', [...addresses, added]);
        },
        removeAddress(result, args, cache) {
          if (!result.removeAddress) return;
          const customer = cache.keyOfEntity({ __typename: 'Customer', id: args.customerId as string })!;
          const addresses = (cache.resolve(customer, 'addresses') as string[] | null) ?? [];
          const gone = addresses.filter((key) => cache.resolve(key, 'label') === args.label);
          cache.link(
            customer,
            'addresses',
            addresses.filter((key) => !gone.includes(key)),
          );
          for (const key of gone) cache.invalidate(key);
        },
      },
    },
  });
  client = new Client({
    url: stack.server.url,
    exchanges: [cache, fetchExchange],
    fetch: counting,
    // urql sends queries by GET; Apollo's CSRF prevention serves a GET that carries this header.
    fetchOptions: { headers: { ...bearer(token), 'apollo-require-preflight': 'true' } },
  });
});
afterAll(async () => {
  await stack?.close();
});

async function screen(requestPolicy: 'cache-only' | 'cache-first' | 'network-only' = 'cache-only'): Promise<Screen['me']> {
  const result = await client.query<Screen>(SCREEN, { after: null }, { requestPolicy }).toPromise();
  expect(result.error).toBeUndefined();
  return result.data!.me;
}

describe('urql with Graphcache over the real server', () => {
  it('loads the customer screen by GET, then pages every order: no gap, no duplicate', async () => {
    const first = await screen('cache-first');
    expect(first).toMatchObject({ id: fixture.customer.id, name: 'Ana', addresses: fixture.addresses.map((a) => ({ label: a.label })) });
    expect(methods).toEqual(['GET']);
    let page = first.orders;
    while (page.pageInfo.hasNextPage) {
      const next = await client.query<Screen>(SCREEN, { after: page.pageInfo.endCursor }).toPromise();
      expect(next.error).toBeUndefined();
      page = next.data!.me.orders;
    }
    expect(methods).toEqual(['GET', 'GET', 'GET']);
    // The first page's query, read from the cache alone: every page merged, every order once, newest first.
    const merged = await screen();
    expect(merged.orders.edges.map((edge) => edge.node.id)).toEqual(fixture.orders.map((order) => order.id));
    expect(merged.orders.pageInfo.hasNextPage).toBe(false);
  });

  it('updates the cache from mutation results, without a refetch', async () => {
    const customerId = fixture.customer.id;
    methods.length = 0;
    const [kept, removed] = fixture.addresses as [(typeof fixture.addresses)[0], (typeof fixture.addresses)[0]];
    const mutate = async (document: typeof RENAME, variables: Record<string, unknown>) => {
      const result = await client.mutation(document, variables).toPromise();
      expect(result.error).toBeUndefined();
    };

    await mutate(PUT_ADDRESS, { customerId, input: { ...kept, city: 'Sevilla' } });
    expect((await screen()).addresses.find((a) => a.label === kept.label)?.city).toBe('Sevilla');

    const office = { label: 'office', street: 'Rua Augusta 1', city: 'Lisboa', postalCode: '1100-048', country: 'PT' };
    await mutate(PUT_ADDRESS, { customerId, input: office });
    expect((await screen()).addresses.map((a) => a.label)).toEqual([kept.label, removed.label, 'office']);

    await mutate(REMOVE_ADDRESS, { customerId, label: removed.label });
    expect((await screen()).addresses.map((a) => a.label)).toEqual([kept.label, 'office']);

    await mutate(RENAME, { id: customerId, name: 'Ana María' });
    expect((await screen()).name).toBe('Ana María');

    // Four mutations, four POSTs: nothing refetched; and the cache agrees with the server.
    expect(methods).toEqual(['POST', 'POST', 'POST', 'POST']);
    const fresh = await screen('network-only');
    expect(fresh.addresses).toEqual((await screen()).addresses);
    expect(fresh.addresses.map((a) => a.city)).toEqual(['Sevilla', 'Lisboa']);
    expect(fresh.name).toBe('Ana María');
  });

  it('keys every entity by its id: Graphcache warned about nothing', () => {
    expect(warnings).not.toHaveBeenCalled();
  });
});
