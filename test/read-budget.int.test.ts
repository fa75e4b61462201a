/**
 * The request budget of the brief ("Single-query reads") for customer reads, one row at a time,
 * measured on the wire: the customer screen and its parts, one customer asked for several times in
 * one operation, and several customers in one operation. Each test counts the DynamoDB requests
 * that reached the engine, reads the waves from the explain extension (which must agree with the
 * wire), and compares the whole GraphQL `data` with the fixture it loaded. Order reads are in
 * read-budget-orders.int.test.ts; the shared customers are in support/read-world.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import {
  ADDRESS_FIELDS,
  costOf,
  expectBudget,
  expectExplainAgrees,
  ORDER_FIELDS,
  orderData,
  type CustomerFixture,
} from './support/fixtures';
import { loadReadWorld, SCREEN, screenData } from './support/read-world';
import { MAX_ADDRESSES, newId } from '../src/model';

let stack: Stack;
let ana: CustomerFixture;
let big: CustomerFixture;
let peer: CustomerFixture;
let small: CustomerFixture;
let crowd: CustomerFixture[];

beforeAll(async () => {
  stack = await startStack();
  ({ ana, big, peer, small, crowd } = await loadReadWorld(stack));
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

describe('the customer screen', () => {
  it('serves profile, addresses and the latest 20 orders with one Query', async () => {
    const measured = await stack.measure(SCREEN, { id: ana.customer.id });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ customer: screenData(ana) });
  });

  it('reads a bounded number of items for a customer with 10,000 orders', async () => {
    const measured = await stack.measure(SCREEN, { id: big.customer.id });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ customer: screenData(big) });
    const { items } = costOf(measured);
    expect(items).toBeLessThanOrEqual(1 + MAX_ADDRESSES + 20 + 1);
    expect(measured.response.extensions?.dynamodb.requests[0].scanned).toBe(items);
    // On the wire: one descending Query whose Limit bounds what DynamoDB may read.
    expect(measured.wire[0]?.body).toMatchObject({ ScanIndexForward: false, Limit: 1 + MAX_ADDRESSES + 20 + 1 });
  });

  it('costs the same for 10,000 orders as for 25 (the bound is flat), and no more for 10', async () => {
    const huge = costOf(await stack.measure(SCREEN, { id: big.customer.id }));
    const modest = costOf(await stack.measure(SCREEN, { id: peer.customer.id }));
    const tiny = costOf(await stack.measure(SCREEN, { id: small.customer.id }));
    expect(huge).toEqual(modest);
    expect(huge).toEqual({ requests: 1, waves: 1, items: 1 + MAX_ADDRESSES + 20 + 1, operations: ['Query'] });
    expect(tiny).toEqual({ requests: 1, waves: 1, items: 1 + MAX_ADDRESSES + 10, operations: ['Query'] });
  });

  it('serves `me` for a customer token with the same one Query, whatever the sign-in path', async () => {
    const me = SCREEN.replace('query Screen($id: ID!)', 'query Me').replace('customer(id: $id)', 'me');
    const measured = await stack.measure(me, {}, bearer(await tokens.customer(ana.customer.id)));
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ me: screenData(ana) });
  });

  it('serves the profile alone with one request', async () => {
    const measured = await stack.measure(`query($id: ID!) { customer(id: $id) { name } }`, { id: ana.customer.id });
    expectBudget(measured, { requests: 1, waves: 1 });
    expect(measured.response.data).toEqual({ customer: { name: ana.customer.name } });
  });

  it('serves the addresses alone with one Query that reads no orders', async () => {
    const measured = await stack.measure(`query($id: ID!) { customer(id: $id) { addresses { ${ADDRESS_FIELDS} } } }`, {
      id: big.customer.id,
    });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ customer: { addresses: big.addresses } });
    expect(costOf(measured).items).toBeLessThanOrEqual(1 + MAX_ADDRESSES);
  });

  it("serves one month's orders alone with one Query, that month only, newest first", async () => {
    const measured = await stack.measure(
      `query($id: ID!, $month: String) { customer(id: $id) { orders(month: $month, first: 100) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } } } }`,
      { id: ana.customer.id, month: '2026-08' },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    const august = ana.orders.filter((order) => order.placedAt.startsWith('2026-08'));
    expect(august.length).toBeGreaterThan(5);
    expect(august.length).toBeLessThan(ana.orders.length);
    expect(measured.response.data).toEqual({ customer: { orders: { nodes: august.map(orderData), pageInfo: { hasNextPage: false } } } });
  });

  it('serves one month of a 10,000-order customer reading only that month (plus one to tell the next page)', async () => {
    const month = '2026-08';
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) { orders(month: "${month}", first: 10) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } } } }`,
      { id: big.customer.id },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    const inMonth = big.orders.filter((order) => order.placedAt.startsWith(month));
    expect(measured.response.data).toEqual({
      customer: { orders: { nodes: inMonth.slice(0, 10).map(orderData), pageInfo: { hasNextPage: true } } },
    });
    expect(costOf(measured).items).toBe(11);
  });

  it('reads the latest orders and one month (two runs) with two Queries in one wave', async () => {
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) {
        name addresses { label }
        latest: orders(first: 3) { nodes { id } }
        august: orders(month: "2026-08", first: 3) { nodes { id } }
      } }`,
      { id: ana.customer.id },
    );
    expectBudget(measured, { requests: 2, waves: 1, operations: ['Query', 'Query'] });
    const ids = (orders: typeof ana.orders) => orders.slice(0, 3).map(({ id }) => ({ id }));
    expect(measured.response.data).toEqual({
      customer: {
        name: ana.customer.name,
        addresses: ana.addresses.map(({ label }) => ({ label })),
        latest: { nodes: ids(ana.orders) },
        august: { nodes: ids(ana.orders.filter((order) => order.placedAt.startsWith('2026-08'))) },
      },
    });
  });

  it('answers a missing customer with null and one request', async () => {
    const full = await stack.measure(SCREEN, { id: newId() });
    expectBudget(full, { requests: 1, waves: 1 });
    expect(full.response.data).toEqual({ customer: null });

    const nameOnly = await stack.measure(`query($id: ID!) { customer(id: $id) { name } }`, { id: newId() });
    expectBudget(nameOnly, { requests: 1, waves: 1 });
    expect(nameOnly.response.data).toEqual({ customer: null });
  });
});

describe('one customer asked for several times in one operation', () => {
  it('reads a customer under two aliases as one', async () => {
    const measured = await stack.measure(`query($id: ID!) { a: customer(id: $id) { name } b: customer(id: $id) { addresses { label } } }`, {
      id: ana.customer.id,
    });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({
      a: { name: ana.customer.name },
      b: { addresses: ana.addresses.map(({ label }) => ({ label })) },
    });
  });

  it('reads two aliases that together want the whole screen as one Query', async () => {
    const measured = await stack.measure(
      `query($id: ID!) {
        head: customer(id: $id) { id name email createdAt addresses { ${ADDRESS_FIELDS} } }
        recent: customer(id: $id) { orders(first: 20) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } } }
      }`,
      { id: big.customer.id },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    const { orders, ...head } = screenData(big);
    expect(measured.response.data).toEqual({ head, recent: { orders } });
  });

  it('reads aliased order lists of one run (first: 3 and first: 12) with one Query', async () => {
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) {
        name
        top: orders(first: 3) { nodes { id } pageInfo { hasNextPage } }
        more: orders(first: 12) { nodes { id } pageInfo { hasNextPage } }
      } }`,
      { id: ana.customer.id },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    const ids = (n: number) => ana.orders.slice(0, n).map(({ id }) => ({ id }));
    expect(measured.response.data).toEqual({
      customer: {
        name: ana.customer.name,
        top: { nodes: ids(3), pageInfo: { hasNextPage: true } },
        more: { nodes: ids(12), pageInfo: { hasNextPage: true } },
      },
    });
  });

  it.each([
    ['profile | addresses', '{ name }', `{ addresses { ${ADDRESS_FIELDS} } }`],
    ['profile | latest orders', '{ name email }', `{ orders(first: 20) { nodes { id } } }`],
    ['addresses | latest orders', `{ addresses { label } }`, `{ orders(first: 3) { nodes { id } } }`],
    [
      'screen | screen',
      `{ name addresses { label } orders(first: 5) { nodes { id } } }`,
      `{ name addresses { label } orders(first: 5) { nodes { id } } }`,
    ],
    ['profile | one month', '{ name }', `{ orders(month: "2026-09", first: 5) { nodes { id } } }`],
  ])('costs the same under two aliases as in one field (%s)', async (_name, left, right) => {
    const aliased = await stack.measure(`query($id: ID!) { a: customer(id: $id) ${left} b: customer(id: $id) ${right} }`, {
      id: big.customer.id,
    });
    const merged = await stack.measure(
      `query($id: ID!) { customer(id: $id) { ...L ...R } } fragment L on Customer ${left} fragment R on Customer ${right}`,
      { id: big.customer.id },
    );
    expect(aliased.response.errors).toBeUndefined();
    expect(merged.response.errors).toBeUndefined();
    expectExplainAgrees(aliased);
    expectExplainAgrees(merged);
    expect(costOf(aliased)).toEqual(costOf(merged));
    const { a, b } = aliased.response.data;
    expect({ ...a, ...b }).toEqual(merged.response.data.customer);
  });

  it('reads through named and inline fragments with one Query', async () => {
    const measured = await stack.measure(
      `query($id: ID!) {
        customer(id: $id) {
          ...Profile
          ... on Customer { addresses { ...Place } }
          ... { orders(first: 20) { ...Page } }
        }
      }
      fragment Profile on Customer { id name email createdAt }
      fragment Place on Address { ${ADDRESS_FIELDS} }
      fragment Page on OrderConnection { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } }`,
      { id: ana.customer.id },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(measured.response.data).toEqual({ customer: screenData(ana) });
  });

  it('honours @include and @skip with variables, reading only what is included', async () => {
    const query = `query($id: ID!, $withAddresses: Boolean!, $skipOrders: Boolean!) {
      customer(id: $id) {
        name
        addresses @include(if: $withAddresses) { label }
        ...Orders @skip(if: $skipOrders)
      }
    }
    fragment Orders on Customer { orders(first: 5) { nodes { id } } }`;

    const everything = await stack.measure(query, { id: big.customer.id, withAddresses: true, skipOrders: false });
    expectBudget(everything, { requests: 1, waves: 1, operations: ['Query'] });
    expect(everything.response.data).toEqual({
      customer: {
        name: big.customer.name,
        addresses: big.addresses.map(({ label }) => ({ label })),
        orders: { nodes: big.orders.slice(0, 5).map(({ id }) => ({ id })) },
      },
    });

    const noOrders = await stack.measure(query, { id: big.customer.id, withAddresses: true, skipOrders: true });
    expectBudget(noOrders, { requests: 1, waves: 1, operations: ['Query'] });
    expect(noOrders.response.data).toEqual({
      customer: { name: big.customer.name, addresses: big.addresses.map(({ label }) => ({ label })) },
    });
    expect(costOf(noOrders).items).toBe(1 + MAX_ADDRESSES);

    const nameOnly = await stack.measure(query, { id: big.customer.id, withAddresses: false, skipOrders: true });
    expectBudget(nameOnly, { requests: 1, waves: 1 });
    expect(nameOnly.response.data).toEqual({ customer: { name: big.customer.name } });
    expect(costOf(nameOnly).items).toBe(1);
  });

  it("answers an order's customer inside that customer's own screen without another read", async () => {
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) { name orders(first: 4) { nodes { id customer { id name } } } } }`,
      { id: ana.customer.id },
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    const self = { id: ana.customer.id, name: ana.customer.name };
    expect(measured.response.data).toEqual({
      customer: { name: ana.customer.name, orders: { nodes: ana.orders.slice(0, 4).map(({ id }) => ({ id, customer: self })) } },
    });
  });
});

describe('several customers in one operation', () => {
  it('reads K customers, full screen each, with K Queries in one wave', async () => {
    const aliases = crowd.map((_, i) => `c${i}: customer(id: $id${i}) { ...Screen }`).join('\n');
    const measured = await stack.measure(
      `query(${crowd.map((_, i) => `$id${i}: ID!`).join(', ')}) { ${aliases} }
      fragment Screen on Customer {
        id name email createdAt
        addresses { ${ADDRESS_FIELDS} }
        orders(first: 20) { nodes { ${ORDER_FIELDS} } pageInfo { hasNextPage } }
      }`,
      Object.fromEntries(crowd.map((fixture, i) => [`id${i}`, fixture.customer.id])),
    );
    expectBudget(measured, { requests: crowd.length, waves: 1, operations: crowd.map(() => 'Query') });
    expect(measured.response.data).toEqual(Object.fromEntries(crowd.map((fixture, i) => [`c${i}`, screenData(fixture)])));
  });

  it("reads K customers' profiles alone with one BatchGetItem", async () => {
    const measured = await stack.measure(
      `query(${crowd.map((_, i) => `$id${i}: ID!`).join(', ')}) { ${crowd.map((_, i) => `c${i}: customer(id: $id${i}) { id name }`).join(' ')} }`,
      Object.fromEntries(crowd.map((fixture, i) => [`id${i}`, fixture.customer.id])),
    );
    expectBudget(measured, { requests: 1, waves: 1, operations: ['BatchGetItem'] });
    expect(measured.response.data).toEqual(
      Object.fromEntries(crowd.map((fixture, i) => [`c${i}`, { id: fixture.customer.id, name: fixture.customer.name }])),
    );
  });

  it('answers a missing customer among present ones with null, in the same wave', async () => {
    const [first] = crowd as [CustomerFixture];
    const measured = await stack.measure(
      `query($a: ID!, $b: ID!) { a: customer(id: $a) { name addresses { label } } b: customer(id: $b) { name addresses { label } } }`,
      { a: first.customer.id, b: newId() },
    );
    expectBudget(measured, { requests: 2, waves: 1, operations: ['Query', 'Query'] });
    expect(measured.response.data).toEqual({
      a: { name: first.customer.name, addresses: first.addresses.map(({ label }) => ({ label })) },
      b: null,
    });
  });
});
