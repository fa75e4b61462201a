/**
 * Shared by the write-path suites (test/write-path*.int.test.ts): the mutations they send, the
 * catalog orders are priced from, sample inputs, and helpers bound to the suite's stack.
 */
import { expect } from 'vitest';
import { CUSTOMER_FIELDS, dataOf, expectError, ORDER_FIELDS } from './graphql';
import { loadProducts } from './fixtures';
import type { Stack } from './stack';
import { MAX_LINES, newId } from '../../src/model';
import type { Item } from '../../src/dynamo/table';

export const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { ${CUSTOMER_FIELDS} } }`;
export const UPDATE = `mutation($id: ID!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { ${CUSTOMER_FIELDS} } }`;
export const PUT_ADDRESS = `mutation($customerId: ID!, $input: AddressInput!) { putAddress(customerId: $customerId, input: $input) { label street city postalCode country } }`;
export const REMOVE_ADDRESS = `mutation($customerId: ID!, $label: String!) { removeAddress(customerId: $customerId, label: $label) }`;
export const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_FIELDS} } }`;
export const MOVE = `mutation($id: ID!, $status: OrderStatus!) { updateOrderStatus(id: $id, status: $status) { id status } }`;

/** The catalog the orders are priced from (placeOrder takes no price from the client). */
export async function loadCatalog(stack: Stack): Promise<void> {
  await loadProducts(stack, [
    { sku: 'BOOK-1', priceCents: 1250 },
    { sku: 'MUG-2', priceCents: 899 },
    { sku: 'OTHER', priceCents: 1 },
    { sku: 'A', priceCents: 100 },
    { sku: 'PRICEY', priceCents: 100_000_000 },
    ...Array.from({ length: MAX_LINES }, (_, i) => ({ sku: `SKU-${i}`, priceCents: 100 })),
  ]);
}

let emailSeq = 0;
export const freshEmail = (tag = 'user') => `${tag}.${++emailSeq}.${Date.now()}@example.com`;

export const address = (label: string) => ({ label, street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' });
export const lines = [
  { sku: 'BOOK-1', quantity: 2 },
  { sku: 'MUG-2', quantity: 1 },
];

function sortItems(items: Item[]) {
  return [...items].sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

/** Helpers over the suite's stack, which `stack()` returns once `beforeAll` has started it. */
export function writeHelpers(stack: () => Stack) {
  async function createCustomer(name = 'Ana', email = freshEmail()) {
    return dataOf(await stack().gql(CREATE, { input: { name, email } })).createCustomer as {
      id: string;
      name: string;
      email: string;
      createdAt: string;
    };
  }

  async function placeOrder(customerId: string, idempotencyKey = `key-${newId()}`, orderLines = lines) {
    return dataOf(await stack().gql(PLACE, { input: { customerId, idempotencyKey, lines: orderLines } })).placeOrder as {
      id: string;
      placedAt: string;
      status: string;
      totalCents: number;
    };
  }

  /** Runs `mutate` and asserts it failed with `code`, made no request at all when `requests` is 0, and left the table as it was. */
  async function expectRefused(code: string, mutate: () => Promise<any>, options: { requests?: number } = {}) {
    const before = await stack().items();
    stack().engine.wire.reset();
    const response = await mutate();
    const wire = stack().engine.wire.requests();
    expectError(response, code);
    if (options.requests !== undefined) expect(wire).toHaveLength(options.requests);
    expect(sortItems(await stack().items())).toEqual(sortItems(before));
    return response;
  }

  async function itemsUnder(pk: string) {
    return (await stack().items()).filter((item) => item.PK === pk);
  }

  return { createCustomer, placeOrder, expectRefused, itemsUnder };
}
