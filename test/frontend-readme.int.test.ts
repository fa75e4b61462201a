/**
 * docs/frontend.md, "From a frontend" (linked from the README), run against the real server and engine: its mutation with its
 * variables and an Authorization header; its paging query through Apollo Client 4 with
 * `relayStylePagination` (page 2 merged after page 1, nothing lost or repeated); its urql client,
 * whose default GET queries pass Apollo's CSRF prevention with `apollo-require-preflight` and are
 * refused without it; and its GraphQL Code Generator config, which types `DateTime` as a string.
 * The GraphQL and the codegen config are read from the page itself, so the section cannot rot.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { generate } from '@graphql-codegen/cli';
import { Client, cacheExchange, fetchExchange } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tokens } from './support/auth';
import { buildCustomer, customerItems, loadProducts } from './support/fixtures';
import { startStack, type Stack } from './support/stack';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The code blocks of one language in docs/frontend.md's "From a frontend" section, in order. */
function sectionBlocks(language: string): string[] {
  const page = readFileSync(join(root, 'docs', 'frontend.md'), 'utf8');
  const start = page.indexOf('## From a frontend');
  expect(start).toBeGreaterThan(0);
  const section = page.slice(start, page.indexOf('\n## ', start));
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

const [MUTATION, PAGING] = sectionBlocks('graphql');
const [VARIABLES] = sectionBlocks('json');
const [CODEGEN] = sectionBlocks('yaml');
const ORDERS = 25; // more than the query's first: 20, so there is a page 2

let stack: Stack;
let customerId: string;
let orderIds: string[];

beforeAll(async () => {
  stack = await startStack();
  await loadProducts(stack, [{ sku: 'MUG-002', priceCents: 1250 }]);
  const fixture = buildCustomer({ orders: ORDERS });
  await stack.load(customerItems(fixture));
  customerId = fixture.customer.id;
  orderIds = [...fixture.orders].sort((a, b) => b.placedAt.localeCompare(a.placedAt)).map((order) => order.id);
  await stack.settled();
});
afterAll(async () => {
  await stack?.close();
});

describe('docs/frontend.md "From a frontend"', () => {
  it('has the blocks this test runs', () => {
    expect(MUTATION).toMatch(/^mutation PlaceOrder\(\$input: PlaceOrderInput!\)/);
    expect(PAGING).toContain('edges {\n        cursor\n        node {');
    expect(JSON.parse(VARIABLES!)).toHaveProperty('input');
    expect(CODEGEN).toContain('DateTime: string');
  });

  it('its mutation, with its variables and the Authorization header, places the order', async () => {
    const buyer = buildCustomer({ orders: 0 });
    await stack.load(customerItems(buyer));
    const res = await fetch(stack.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokens.customer(buyer.customer.id)}` },
      body: JSON.stringify({ query: MUTATION, variables: JSON.parse(VARIABLES!) }),
    });
    const body = (await res.json()) as { data?: { placeOrder: Record<string, unknown> }; errors?: unknown };
    expect({ status: res.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    expect(body.data!.placeOrder).toMatchObject({
      status: 'PENDING',
      totalCents: 2500,
      lines: [{ sku: 'MUG-002', quantity: 2, unitPriceCents: 1250 }],
    });
  });

  it("its paging query, with Apollo Client's relayStylePagination, merges page 2 after page 1", async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: stack.server.url, headers: { authorization: `Bearer ${await tokens.staff()}` } }),
      cache: new InMemoryCache({ typePolicies: { Customer: { fields: { orders: relayStylePagination(['month']) } } } }),
    });
    type Page = {
      customer: { orders: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    };
    const query = gql(PAGING!);
    const first = await client.query<Page>({ query, variables: { id: customerId } });
    expect(first.data!.customer.orders.edges).toHaveLength(20);
    expect(first.data!.customer.orders.pageInfo.hasNextPage).toBe(true);

    // fetchMore's request: page 2 from the network, written into the cache, where the policy merges it.
    await client.query<Page>({
      query,
      variables: { id: customerId, after: first.data!.customer.orders.pageInfo.endCursor },
      fetchPolicy: 'network-only',
    });
    // What fetchMore then shows: the cache's merged list, page 1 followed by page 2.
    const merged = client.readQuery<Page>({ query, variables: { id: customerId } })!;
    expect(merged.customer.orders.edges.map((edge) => edge.node.id)).toEqual(orderIds);
    expect(merged.customer.orders.pageInfo.hasNextPage).toBe(false);
  });

  it("urql's default GET queries pass CSRF prevention with apollo-require-preflight, and are refused (400) without it", async () => {
    const token = await tokens.staff();
    const methods: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      methods.push(init?.method ?? 'GET');
      return fetch(input, init);
    };
    const urql = (headers: Record<string, string>) =>
      new Client({
        url: stack.server.url,
        exchanges: [cacheExchange, fetchExchange],
        fetch: recordingFetch,
        fetchOptions: () => ({ headers }),
      });
    const query = '{ product(sku: "MUG-002") { sku priceCents } }';

    const allowed = await urql({ authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' })
      .query(query, {})
      .toPromise();
    expect({ data: allowed.data, error: allowed.error?.message }).toEqual({
      data: { product: { __typename: 'Product', sku: 'MUG-002', priceCents: 1250 } },
      error: undefined,
    });

    const refused = await urql({ authorization: `Bearer ${token}` })
      .query(query, {})
      .toPromise();
    expect(refused.data).toBeUndefined();
    expect((refused.error?.response as Response | undefined)?.status).toBe(400);
    expect(methods).toEqual(['GET', 'GET']);

    // The other way the page names: a non-simple content type.
    const url = `${stack.server.url}?query=${encodeURIComponent(query)}`;
    const withType = await fetch(url, { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    expect(withType.status).toBe(200);
  });

  it('its codegen config types DateTime as a string in the client code', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-codegen-'));
    try {
      writeFileSync(join(dir, 'orders.graphql'), PAGING!);
      const config = parseYaml(CODEGEN!) as { generates: Record<string, { config?: object }> };
      const [output] = Object.values(config.generates);
      const placedAtType = async (outputConfig: { config?: object }) => {
        const files = (await generate(
          {
            schema: join(root, 'schema.graphql'),
            documents: join(dir, '*.graphql'),
            generates: { [join(dir, 'gql/')]: outputConfig },
            silent: true,
          },
          false,
        )) as { filename: string; content: string }[];
        const types = files.find((file) => file.filename.endsWith('graphql.ts'))!.content;
        return /export type CustomerOrdersQuery = [^\n]*placedAt: (\w+)/.exec(types)?.[1];
      };
      expect(await placedAtType(output!)).toBe('string');
      // Without the page's mapping: unknown, as the page says.
      expect(await placedAtType({ ...output!, config: {} })).toBe('unknown');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
