/**
 * Read-your-writes on the faithful engine (issue 11): eventually consistent GetItem/BatchGetItem
 * (a stale or absent answer for up to 200 ms after a write) and GSI lag. The exact screens (`me`,
 * `customer`, `product`) read with ConsistentRead at the same request count; `Order.customer`
 * reads eventually and, only when that misses a customer the order proves, once more strongly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { expectBudget, loadProducts } from './support/fixtures';
import { dataOf } from './support/graphql';
import { newId } from '../src/model';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ engine: { consistency: 'eventual', staleReadMs: 200, gsiLagMs: 200 } });
  await loadProducts(stack, [{ sku: 'CONS-1', priceCents: 250 }]);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name } }`;
const ME = `{ me { id name email } }`;
const CUSTOMER = `query($id: ID!) { customer(id: $id) { id name email } }`;
const SCREEN = `query($id: ID!) { customer(id: $id) { id name addresses { label } orders(first: 5) { nodes { id } } } }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents customer { id name } } }`;

const email = (name: string) => `${name}.${newId().toLowerCase()}@example.com`;

describe('the exact screens read their own writes', () => {
  it('answers me right after createCustomer: one GetItem, with ConsistentRead', async () => {
    for (let i = 0; i < 5; i++) {
      const id = newId();
      const as = bearer(await tokens.customer(id));
      const input = { name: `Ana ${i}`, email: email('ana') };
      expect(dataOf(await stack.gql(CREATE, { input }, as)).createCustomer).toEqual({ id, name: input.name });
      const measured = await stack.measure(ME, {}, as);
      expectBudget(measured, { requests: 1, waves: 1, operations: ['GetItem'] });
      expect(measured.wire[0]?.body).toMatchObject({ ConsistentRead: true });
      expect(measured.response.data).toEqual({ me: { id, name: input.name, email: input.email } });
    }
  });

  it('answers customer(id) right after createCustomer, the profile or the whole screen in one request', async () => {
    for (let i = 0; i < 5; i++) {
      const input = { name: `Bea ${i}`, email: email('bea') };
      const { id } = dataOf(await stack.gql(CREATE, { input })).createCustomer as { id: string };
      const profile = await stack.measure(CUSTOMER, { id });
      expectBudget(profile, { requests: 1, waves: 1, operations: ['GetItem'] });
      expect(profile.wire[0]?.body).toMatchObject({ ConsistentRead: true });
      expect(profile.response.data).toEqual({ customer: { id, name: input.name, email: input.email } });

      const { id: other } = dataOf(await stack.gql(CREATE, { input: { name: `Cid ${i}`, email: email('cid') } })).createCustomer as {
        id: string;
      };
      const screen = await stack.measure(SCREEN, { id: other });
      expectBudget(screen, { requests: 1, waves: 1, operations: ['Query'] });
      expect(screen.wire[0]?.body).toMatchObject({ ConsistentRead: true });
      expect(screen.response.data).toEqual({ customer: { id: other, name: `Cid ${i}`, addresses: [], orders: { nodes: [] } } });
    }
  });

  it('answers product right after putProduct with the new price: one GetItem, with ConsistentRead', async () => {
    const PUT = `mutation($input: ProductInput!) { putProduct(input: $input) { sku priceCents } }`;
    const READ = `query($sku: ID!) { product(sku: $sku) { sku priceCents } }`;
    for (let price = 100; price < 105; price++) {
      await stack.gql(PUT, { input: { sku: 'CONS-2', name: 'Two', priceCents: price, active: true } });
      const measured = await stack.measure(READ, { sku: 'CONS-2' });
      expectBudget(measured, { requests: 1, waves: 1, operations: ['GetItem'] });
      expect(measured.wire[0]?.body).toMatchObject({ ConsistentRead: true });
      expect(measured.response.data).toEqual({ product: { sku: 'CONS-2', priceCents: price } });
    }
  });
});

describe('an order proves its customer', () => {
  it('answers placeOrder { customer { name } } right after createCustomer; a strong GetItem only after an eventual miss', async () => {
    const extra: number[] = [];
    for (let i = 0; i < 8; i++) {
      const name = `Dan ${i}`;
      const { id } = dataOf(await stack.gql(CREATE, { input: { name, email: email('dan') } })).createCustomer as { id: string };
      const measured = await stack.measure(PLACE, {
        input: { customerId: id, idempotencyKey: `c-${i}`, lines: [{ sku: 'CONS-1', quantity: 2 }] },
      });
      expect(measured.response.errors).toBeUndefined();
      expect(measured.response.data.placeOrder).toMatchObject({ totalCents: 500, customer: { id, name } });
      // The prices (consistent), the transaction, the customer's profile eventually, and a strong
      // GetItem again only when the eventual one found nothing.
      const gets = measured.wire.filter((request) => request.operation === 'GetItem');
      expect(measured.wire.map((request) => request.operation).slice(0, 3)).toEqual(['BatchGetItem', 'TransactWriteItems', 'GetItem']);
      expect(gets[0]?.body.ConsistentRead ?? false).toBe(false);
      expect(measured.wire.length).toBeLessThanOrEqual(4);
      if (measured.wire.length === 4) expect(gets[1]?.body).toMatchObject({ ConsistentRead: true });
      extra.push(measured.wire.length - 3);
    }
    // Right after the write, the eventual read usually misses: the fallback is exercised.
    expect(extra.some((n) => n === 1)).toBe(true);
  });
});
