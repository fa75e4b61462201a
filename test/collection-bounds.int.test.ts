/**
 * Data over the customer collection's declared bound (an 11th address, from an import or a bug)
 * is answered, not an internal error: the screen shows the first 10 addresses by label (as the
 * addresses-alone Query, whose Limit stops at the bound, does) and every order it asks for; the
 * surplus cut the screen Query's orders short, so they are read again in one more wave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { ADDRESS_FIELDS, ORDER_FIELDS, expectBudget, orderData, profileData, World, type CustomerFixture } from './support/fixtures';
import { MAX_ADDRESSES } from '../src/model';

let stack: Stack;
let over: CustomerFixture;

beforeAll(async () => {
  stack = await startStack();
  over = await new World(stack).customer({ name: 'Imported', addresses: MAX_ADDRESSES + 1, orders: 25, detail: false });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('a customer with more addresses than the collection declares', () => {
  it('answers the screen with the first 10 addresses and 20 orders, one more Query in a second wave', async () => {
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) { id name email createdAt addresses { ${ADDRESS_FIELDS} } orders(first: 20) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } } } }`,
      { id: over.customer.id },
    );
    expect(measured.response.errors).toBeUndefined();
    expectBudget(measured, { requests: 2, waves: 2, operations: ['Query', 'Query'] });
    expect(measured.response.data).toEqual({
      customer: {
        ...profileData(over.customer),
        addresses: over.addresses.slice(0, MAX_ADDRESSES),
        orders: { nodes: over.orders.slice(0, 20).map(orderData), pageInfo: { hasNextPage: true } },
      },
    });
  });

  it('answers the addresses alone with the same 10, in one Query', async () => {
    const measured = await stack.measure(`query($id: ID!) { customer(id: $id) { addresses { label } } }`, { id: over.customer.id });
    expect(measured.response.errors).toBeUndefined();
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({
      customer: { addresses: over.addresses.slice(0, MAX_ADDRESSES).map(({ label }) => ({ label })) },
    });
  });
});
