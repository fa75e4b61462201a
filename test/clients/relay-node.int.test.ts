/**
 * Relay's global object identification over the real server: `node(id)` and `nodes(ids)` answer
 * every Node type with the ids the API already hands out, within the budget docs/request-budget.md states
 * (requests counted on the wire, waves from the explain extension, which must agree), and the
 * cost estimate the operation was admitted with bounds the items it read. PageInfo is complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack';
import { dataOf } from '../support/graphql';
import { expectBadInput, expectBudget, type Measured } from '../support/fixtures';
import { newId } from '../../src/model';

let stack: Stack;
const logged = new Map<string, { dynamodb: { read: number }; cost: { reads: number } }>();
const world = { customer: '', order: '', other: '', home: '', work: '', product: '', sku: '' };

const ADDRESS = { street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' };
const NODE = `query($id: ID!) { node(id: $id) { __typename id ... on Customer { name } ... on Order { status totalCents } ... on Address { label city } ... on Product { sku priceCents } } }`;
const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Customer { name } ... on Order { status } ... on Address { label } ... on Product { sku } } }`;

beforeAll(async () => {
  stack = await startStack({
    log: (line) => {
      if (line.msg === 'operation') logged.set(String(line.requestId), line as never);
    },
  });
  world.sku = `NODE-${newId().slice(-6)}`;
  const created = await stack.gql(`mutation($input: ProductInput!) { putProduct(input: $input) { id } }`, {
    input: { sku: world.sku, name: 'Lamp', priceCents: 1999, active: true },
  });
  world.product = dataOf(created).putProduct.id;
  const create = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
  world.customer = dataOf(await stack.gql(create, { input: { name: 'Nora', email: `nora-${newId()}@example.com` } })).createCustomer.id;
  world.other = dataOf(await stack.gql(create, { input: { name: 'Olga', email: `olga-${newId()}@example.com` } })).createCustomer.id;
  const put = `mutation($id: ID!, $input: AddressInput!) { putAddress(customerId: $id, input: $input) { id } }`;
  world.home = dataOf(await stack.gql(put, { id: world.customer, input: { label: 'home', ...ADDRESS } })).putAddress.id;
  world.work = dataOf(await stack.gql(put, { id: world.customer, input: { label: 'work', ...ADDRESS, city: 'Lyon' } })).putAddress.id;
  const place = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }`;
  const input = { customerId: world.customer, idempotencyKey: `node-${newId()}`, lines: [{ sku: world.sku, quantity: 2 }] };
  world.order = dataOf(await stack.gql(place, { input })).placeOrder.id;
  await stack.settled();
});
afterAll(async () => {
  await stack?.close();
});

/** Measures an operation as staff, and checks that the items it read stay within the reads it was admitted with. */
async function measured(query: string, variables: Record<string, unknown>): Promise<Measured> {
  const result = await stack.measure(query, variables);
  const line = logged.get(result.response.headers.get('x-request-id') ?? '');
  expect(line, 'the operation log line').toBeDefined();
  expect(line!.dynamodb.read).toBeLessThanOrEqual(line!.cost.reads);
  return result;
}

describe('node(id)', () => {
  it('a customer by the id it always had: its candidates as customer and as order, 2 requests in 1 wave', async () => {
    const result = await measured(NODE, { id: world.customer });
    expectBudget(result, { requests: 2, waves: 1, operations: ['GetItem', 'Query'] });
    expect(result.response.data).toEqual({ node: { __typename: 'Customer', id: world.customer, name: 'Nora' } });
  });

  it('an order by its id: 2 requests in 1 wave', async () => {
    const result = await measured(NODE, { id: world.order });
    expectBudget(result, { requests: 2, waves: 1, operations: ['GetItem', 'Query'] });
    expect(result.response.data).toEqual({ node: { __typename: 'Order', id: world.order, status: 'PENDING', totalCents: 3998 } });
  });

  it('an address by its stable id: its customer collection head, 1 request', async () => {
    const result = await measured(NODE, { id: world.home });
    expectBudget(result, { requests: 1, waves: 1, operations: ['Query'] });
    expect(result.response.data).toEqual({ node: { __typename: 'Address', id: world.home, label: 'home', city: 'Madrid' } });
  });

  it('a product by its id: 1 consistent BatchGetItem', async () => {
    const result = await measured(NODE, { id: world.product });
    expectBudget(result, { requests: 1, waves: 1, operations: ['BatchGetItem'] });
    expect(result.wire[0]!.body).toMatchObject({ RequestItems: { app: { ConsistentRead: true } } });
    expect(result.response.data).toEqual({ node: { __typename: 'Product', id: world.product, sku: world.sku, priceCents: 1999 } });
  });

  it('an id that names nothing is null, for the same requests', async () => {
    expectBudget(await measured(NODE, { id: newId() }), { requests: 2, waves: 1 });
    expect((await stack.gql(NODE, { id: newId() })).data).toEqual({ node: null });
  });

  it.each([
    ['not an id', 'nope'],
    ['a 26-character non-ULID', 'U'.repeat(26)],
    ['base64 of no key', Buffer.from('["CATALOG"]').toString('base64url')],
    ['a key of another entity', Buffer.from(JSON.stringify(['EMAIL#a@b.c', 'EMAIL'])).toString('base64url')],
    ['a non-canonical spelling of a product key', Buffer.from('[ "CATALOG", "PRODUCT#X" ]').toString('base64url')],
  ])('a malformed id (%s) is BAD_USER_INPUT before any read', async (_, id) => {
    expectBadInput(await stack.measure(NODE, { id }));
  });
});

describe('nodes(ids)', () => {
  it('every type at once, in the order asked, null where nothing is: one wave', async () => {
    const ids = [world.product, world.order, world.home, world.customer, world.work, newId(), world.other];
    const result = await measured(NODES, { ids });
    // Bare ids (4): their profiles in one BatchGetItem, their orders one Query each; the addresses
    // share their customer's collection head with it (one Query); the product one BatchGetItem.
    expectBudget(result, { requests: 1 + 4 + 1 + 1, waves: 1 });
    expect(result.response.data).toEqual({
      nodes: [
        { __typename: 'Product', id: world.product, sku: world.sku },
        { __typename: 'Order', id: world.order, status: 'PENDING' },
        { __typename: 'Address', id: world.home, label: 'home' },
        { __typename: 'Customer', id: world.customer, name: 'Nora' },
        { __typename: 'Address', id: world.work, label: 'work' },
        null,
        { __typename: 'Customer', id: world.other, name: 'Olga' },
      ],
    });
  });

  it('at most 100 ids; one more, or one malformed id, is BAD_USER_INPUT before any read', async () => {
    expectBadInput(await stack.measure(NODES, { ids: Array.from({ length: 101 }, () => world.product) }));
    expectBadInput(await stack.measure(NODES, { ids: [world.customer, 'nope'] }));
    const hundred = await measured(NODES, { ids: Array.from({ length: 100 }, () => world.product) });
    expectBudget(hundred, { requests: 1, waves: 1, operations: ['BatchGetItem'] });
  });
});

describe('ids of the existing fields', () => {
  it('the ids node takes are those the contract fields return and take', async () => {
    const screen = dataOf(
      await stack.gql(`query($id: ID!) { customer(id: $id) { id addresses { id label } orders(first: 1) { nodes { id } } } }`, {
        id: world.customer,
      }),
    );
    expect(screen.customer).toEqual({
      id: world.customer,
      addresses: [
        { id: world.home, label: 'home' },
        { id: world.work, label: 'work' },
      ],
      orders: { nodes: [{ id: world.order }] },
    });
    const product = dataOf(await stack.gql(`query($sku: ID!) { product(sku: $sku) { id } }`, { sku: world.sku })).product;
    expect(product).toEqual({ id: world.product });
  });

  it("an address keeps its id when putAddress replaces it, and loses it when it's removed", async () => {
    const put = `mutation($id: ID!, $input: AddressInput!) { putAddress(customerId: $id, input: $input) { id city } }`;
    const replaced = dataOf(await stack.gql(put, { id: world.customer, input: { label: 'work', ...ADDRESS, city: 'Porto' } })).putAddress;
    expect(replaced).toEqual({ id: world.work, city: 'Porto' });
    await stack.gql(`mutation($id: ID!) { removeAddress(customerId: $id, label: "work") }`, { id: world.customer });
    expect((await stack.gql(NODE, { id: world.work })).data).toEqual({ node: null });
  });
});

describe('PageInfo', () => {
  it('is complete: startCursor, and hasPreviousPage true exactly when paging forward from a cursor', async () => {
    const page = `query($id: ID!, $after: String) { customer(id: $id) { orders(first: 1, after: $after) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    const first = dataOf(await stack.gql(page, { id: world.customer })).customer.orders;
    const cursor = first.edges[0].cursor;
    expect(first.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: cursor, endCursor: cursor });
    const after = dataOf(await stack.gql(page, { id: world.customer, after: cursor })).customer.orders;
    expect(after).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null } });
    const catalog = dataOf(await stack.gql(`{ products(first: 100) { pageInfo { hasPreviousPage startCursor } } }`)).products;
    expect(catalog.pageInfo).toEqual({ hasPreviousPage: false, startCursor: expect.any(String) });
  });
});
