/**
 * The product catalog (`PK = CATALOG`, `SK = PRODUCT#<sku>`) and placeOrder priced from it, on the
 * wire: putProduct is one TransactWriteItems with its ProductPut event (two when the SKU exists:
 * the first, assuming a new product, is cancelled and returns the stored one), product one GetItem,
 * a page of products one Query; placeOrder is one consistent BatchGetItem of the order's SKUs and
 * the customer's profile, then one TransactWriteItems (2 requests, 2 waves). The client never sends a price; an unknown or inactive SKU writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import { expectBudget, loadProducts, type Measured } from './support/fixtures';
import { encodeCursor, newId } from '../src/model';
import type { Item } from '../src/dynamo/table';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

let seq = 0;
const sku = (tag: string) => `${tag}-${++seq}-${newId().slice(-6)}`;

const PRODUCT_FIELDS = 'sku name priceCents active';
const PUT = `mutation($input: ProductInput!) { putProduct(input: $input) { ${PRODUCT_FIELDS} } }`;
const GET = `query($sku: ID!) { product(sku: $sku) { ${PRODUCT_FIELDS} } }`;
const LIST = `query($first: Int, $after: String) { products(first: $first, after: $after) { nodes { ${PRODUCT_FIELDS} } edges { cursor node { sku } } pageInfo { hasNextPage endCursor } } }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents customer { id } lines { lineNo sku quantity unitPriceCents } } }`;
const ORDER = `query($id: ID!) { order(id: $id) { id totalCents lines { lineNo sku quantity unitPriceCents } } }`;

async function createCustomer(): Promise<string> {
  const email = `buyer.${++seq}.${newId().slice(-6).toLowerCase()}@example.com`;
  return dataOf(
    await stack.gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`, { input: { name: 'Buyer', email } }),
  ).createCustomer.id;
}

const byKey = (a: Item, b: Item) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`);

/** Runs `mutate`, asserts the error code, that the table is exactly as before, and returns the response and its requests. */
async function expectUnchanged(code: string, mutate: () => Promise<any>) {
  const before = (await stack.items()).sort(byKey);
  stack.engine.wire.reset();
  const response = await mutate();
  const wire = stack.engine.wire.requests();
  expectError(response, code);
  expect((await stack.items()).sort(byKey)).toEqual(before);
  return { response, wire };
}

describe('putProduct, product', () => {
  it('creates a product with one TransactWriteItems, reads it with one GetItem, and replaces it in place', async () => {
    const input = { sku: sku('MUG'), name: '  Single-table mug ', priceCents: 1250, active: true };
    const put = await stack.measure(PUT, { input });
    expect(dataOf(put.response).putProduct).toEqual({ ...input, name: 'Single-table mug' });
    expect(operations(put.wire)).toEqual(['TransactWriteItems']);
    expect(put.wire[0]!.body.TransactItems).toHaveLength(2); // the product and its ProductPut event
    expect((await stack.items()).filter((item) => item.SK === `PRODUCT#${input.sku}`)).toEqual([
      {
        PK: 'CATALOG',
        SK: `PRODUCT#${input.sku}`,
        type: 'PRODUCT',
        sku: input.sku,
        name: 'Single-table mug',
        priceCents: 1250,
        active: true,
        eventSeq: 1,
      },
    ]);

    const got = await stack.measure(GET, { sku: input.sku });
    expectBudget(got, { requests: 1, waves: 1, operations: ['GetItem'] });
    expect(dataOf(got.response).product).toEqual({ ...input, name: 'Single-table mug' });

    const replaced = { ...input, name: 'Mug', priceCents: 1399, active: false };
    const again = await stack.measure(PUT, { input: replaced });
    expect(dataOf(again.response).putProduct).toEqual(replaced);
    expect(operations(again.wire)).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    expect(dataOf(await stack.gql(GET, { sku: input.sku })).product).toEqual(replaced);
    expect((await stack.items()).filter((item) => item.SK === `PRODUCT#${input.sku}`)).toEqual([
      expect.objectContaining({ name: 'Mug', priceCents: 1399, active: false, eventSeq: 2 }),
    ]);
  });

  it('answers null for a SKU with no product', async () => {
    expect(dataOf(await stack.gql(GET, { sku: 'NO-SUCH-SKU' })).product).toBeNull();
  });

  it.each([
    ['a SKU holding the key separator', { sku: 'A#B' }],
    ['a SKU of 65 characters', { sku: 'S'.repeat(65) }],
    ['an empty name', { name: ' ' }],
    ['a name of 201 characters', { name: 'n'.repeat(201) }],
    ['a negative price', { priceCents: -1 }],
    ['a price above 100,000,000 cents', { priceCents: 100_000_001 }],
  ])('refuses %s with BAD_USER_INPUT before any request', async (_case, patch) => {
    const { wire } = await expectUnchanged('BAD_USER_INPUT', () =>
      stack.gql(PUT, { input: { sku: sku('BAD'), name: 'Thing', priceCents: 100, active: true, ...patch } }),
    );
    expect(wire).toHaveLength(0);
  });

  it('is for staff: a customer may read the catalog but not change it', async () => {
    const customer = bearer(await tokens.customer(await createCustomer()));
    const input = { sku: sku('STAFF'), name: 'Thing', priceCents: 100, active: true };
    expectError(await stack.gql(PUT, { input }, customer), 'FORBIDDEN');
    await stack.gql(PUT, { input });
    await stack.settled(); // staff wrote it: the customer's product(sku) reads eventually (docs/consistency.md)
    expect(dataOf(await stack.gql(GET, { sku: input.sku }, customer)).product).toEqual(input);
  });
});

describe('products', () => {
  it('pages through the whole catalog by SKU, every product once, one Query a page', async () => {
    await loadProducts(
      stack,
      Array.from({ length: 23 }, (_, i) => ({ sku: `PAGE-${String(i).padStart(2, '0')}`, priceCents: 100 + i, active: i % 5 !== 0 })),
    );
    await stack.settled(); // `products` reads eventually: the products just written show once the replicas have them
    const stored = (await stack.items())
      .filter((item) => item.PK === 'CATALOG')
      .sort(byKey)
      .map((item) => ({ sku: item.sku, name: item.name, priceCents: item.priceCents, active: item.active }));
    expect(stored.length).toBeGreaterThanOrEqual(23);

    const seen: unknown[] = [];
    let after: string | null = null;
    for (let page = 0; ; page++) {
      expect(page).toBeLessThan(20);
      const measured: Measured = await stack.measure(LIST, { first: 7, after });
      expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
      expect(measured.wire[0]!.body).toMatchObject({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', Limit: 8 });
      const {
        nodes,
        edges,
        pageInfo,
      }: {
        nodes: Array<{ sku: string }>;
        edges: Array<{ cursor: string; node: { sku: string } }>;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      } = dataOf(measured.response).products;
      expect(edges.map((edge) => edge.node.sku)).toEqual(nodes.map((node) => node.sku));
      expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
      seen.push(...nodes);
      if (!pageInfo.hasNextPage) break;
      expect(nodes).toHaveLength(7);
      after = pageInfo.endCursor;
    }
    expect(seen).toEqual(stored);
  });

  it('refuses a cursor of another list, or a forged one, with BAD_USER_INPUT before any request', async () => {
    const customerId = await createCustomer();
    await loadProducts(stack, [{ sku: 'CURSOR-1', priceCents: 100 }]);
    for (const key of ['c-1', 'c-2'])
      dataOf(await stack.gql(PLACE, { input: { customerId, idempotencyKey: key, lines: [{ sku: 'CURSOR-1', quantity: 1 }] } }));
    const ordersCursor = dataOf(
      await stack.gql(`query($id: ID!) { customer(id: $id) { orders(first: 1) { pageInfo { endCursor } } } }`, { id: customerId }),
    ).customer.orders.pageInfo.endCursor;
    const productsCursor = dataOf(await stack.gql(LIST, { first: 1 })).products.pageInfo.endCursor;
    const forged = [
      ordersCursor,
      encodeCursor('catalog', { PK: `CUSTOMER#${customerId}`, SK: 'PROFILE' }),
      encodeCursor('catalog', { PK: 'CATALOG', SK: 'PRODUCT#A#B' }),
      encodeCursor(`orders:${customerId}:*`, { PK: 'CATALOG', SK: 'PRODUCT#CURSOR-1' }),
      'not-a-cursor',
    ];
    for (const after of forged) {
      const measured = await stack.measure(LIST, { first: 5, after });
      expectError(measured.response, 'BAD_USER_INPUT');
      expect(measured.wire).toHaveLength(0);
    }
    // And a catalog cursor is no other list's.
    const status = await stack.measure(`query($after: String) { ordersByStatus(status: PENDING, after: $after) { nodes { id } } }`, {
      after: productsCursor,
    });
    expectError(status.response, 'BAD_USER_INPUT');
    expect(status.wire).toHaveLength(0);
  });

  it('refuses first outside 1..100', async () => {
    for (const first of [0, 101]) expectError(await stack.gql(LIST, { first }), 'BAD_USER_INPUT');
  });
});

describe('placeOrder priced by the catalog', () => {
  it('charges the catalog prices, reading the distinct SKUs (and the profile) in one consistent BatchGetItem, then one transaction: 2 requests, 2 waves', async () => {
    const customerId = await createCustomer();
    const [a, b] = [sku('PRICED'), sku('PRICED')];
    await loadProducts(stack, [
      { sku: a, priceCents: 1234 },
      { sku: b, priceCents: 50 },
    ]);
    // The order's own fields are answered from what was written (`customer { … }` would read the profile).
    const measured = await stack.measure(
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id placedAt status totalCents lines { lineNo sku quantity unitPriceCents } } }`,
      {
        input: {
          customerId,
          idempotencyKey: newId(),
          lines: [
            { sku: a, quantity: 2 },
            { sku: b, quantity: 3 },
            { sku: a, quantity: 1 },
          ],
        },
      },
    );
    expectBudget(measured, { requests: 2, waves: 2, operations: ['BatchGetItem', 'TransactWriteItems'] });
    expect(operations(measured.wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(measured.wire[0]!.body.RequestItems.app).toMatchObject({
      ConsistentRead: true,
      Keys: [
        { PK: { S: `CUSTOMER#${customerId}` }, SK: { S: 'PROFILE' } },
        { PK: { S: 'CATALOG' }, SK: { S: `PRODUCT#${a}` } },
        { PK: { S: 'CATALOG' }, SK: { S: `PRODUCT#${b}` } },
      ],
    });
    const order = dataOf(measured.response).placeOrder;
    expect(order).toEqual({
      id: expect.any(String),
      placedAt: expect.any(String),
      status: 'PENDING',
      totalCents: 3 * 1234 + 3 * 50,
      lines: [
        { lineNo: 1, sku: a, quantity: 2, unitPriceCents: 1234 },
        { lineNo: 2, sku: b, quantity: 3, unitPriceCents: 50 },
        { lineNo: 3, sku: a, quantity: 1, unitPriceCents: 1234 },
      ],
    });
    expect(dataOf(await stack.gql(ORDER, { id: order.id })).order).toEqual({
      id: order.id,
      totalCents: order.totalCents,
      lines: order.lines,
    });
    const summary = (await stack.items()).find((item) => item.PK === `CUSTOMER#${customerId}` && String(item.SK).endsWith(order.id));
    expect(summary).toMatchObject({ totalCents: 3852, lineCount: 3 });
  });

  it('takes no price from the client: unitPriceCents in a line is a GraphQL validation error, before any request', async () => {
    const customerId = await createCustomer();
    const before = (await stack.items()).sort(byKey);
    stack.engine.wire.reset();
    const inline = await stack.gql(
      `mutation { placeOrder(input: { customerId: "${customerId}", idempotencyKey: "priced-1", lines: [{ sku: "A", quantity: 1, unitPriceCents: 1 }] }) { id } }`,
    );
    expectError(inline, 'GRAPHQL_VALIDATION_FAILED');
    expect(inline.status).toBe(400);
    expect(inline.errors![0]!.message).toBe('Field "unitPriceCents" is not defined by type "OrderLineInput".');
    // The same through variables: refused while coercing them.
    const variables = await stack.gql(PLACE, {
      input: { customerId, idempotencyKey: 'priced-2', lines: [{ sku: 'A', quantity: 1, unitPriceCents: 1 }] },
    });
    expectError(variables, 'BAD_USER_INPUT');
    expect(variables.status).toBe(400);
    expect(variables.data).toBeUndefined();
    expect(variables.errors![0]!.message).toContain('Field "unitPriceCents" is not defined by type "OrderLineInput".');
    expect(stack.engine.wire.requests()).toHaveLength(0);
    expect((await stack.items()).sort(byKey)).toEqual(before);
  });

  it.each([
    ['an unknown SKU', false],
    ['an inactive SKU', true],
  ])('refuses %s with BAD_USER_INPUT naming the line, and writes nothing', async (_case, exists) => {
    const customerId = await createCustomer();
    const [good, bad] = [sku('GOOD'), sku('BAD')];
    await loadProducts(stack, [{ sku: good, priceCents: 100 }, ...(exists ? [{ sku: bad, priceCents: 100, active: false }] : [])]);
    const lines = [
      { sku: good, quantity: 1 },
      { sku: good, quantity: 2 },
      { sku: good, quantity: 1 },
      { sku: bad, quantity: 1 },
    ];
    const { response, wire } = await expectUnchanged('BAD_USER_INPUT', () =>
      stack.gql(PLACE, { input: { customerId, idempotencyKey: newId(), lines } }),
    );
    expect(response.errors![0]!.extensions!.field).toBe('input.lines[3].sku');
    expect(response.errors![0]!.message).toContain(bad);
    // The catalog read, then (no order to replay) the key's record: nothing is written.
    expect(operations(wire)).toEqual(['BatchGetItem', 'GetItem']);
  });

  it('leaves an order as charged when the price changes later; a replay returns it as charged, a new order pays the new price', async () => {
    const customerId = await createCustomer();
    const item = sku('CHANGING');
    await stack.gql(PUT, { input: { sku: item, name: 'Lamp', priceCents: 1000, active: true } });
    const input = { customerId, idempotencyKey: `change-${newId()}`, lines: [{ sku: item, quantity: 2 }] };
    const first = dataOf(await stack.gql(PLACE, { input })).placeOrder;
    expect(first.lines[0].unitPriceCents).toBe(1000);

    await stack.gql(PUT, { input: { sku: item, name: 'Lamp', priceCents: 1500, active: true } });
    expect(dataOf(await stack.gql(ORDER, { id: first.id })).order).toEqual({ id: first.id, totalCents: 2000, lines: first.lines });
    // The fingerprint covers SKUs and quantities, not prices: the same request is the same order.
    expect(dataOf(await stack.gql(PLACE, { input })).placeOrder).toEqual(first);
    const second = dataOf(await stack.gql(PLACE, { input: { ...input, idempotencyKey: `change-${newId()}` } })).placeOrder;
    expect(second).toMatchObject({ totalCents: 3000, lines: [{ sku: item, quantity: 2, unitPriceCents: 1500 }] });

    // Even once the product is no longer sold, a replay returns the order it placed.
    await stack.gql(PUT, { input: { sku: item, name: 'Lamp', priceCents: 1500, active: false } });
    expect(dataOf(await stack.gql(PLACE, { input })).placeOrder).toEqual(first);
    expectError(await stack.gql(PLACE, { input: { ...input, idempotencyKey: `change-${newId()}` } }), 'BAD_USER_INPUT');
  });
});

describe('placeOrder: whose order, and when', () => {
  it('a customer orders for itself without naming its id', async () => {
    const customerId = await createCustomer();
    const item = sku('SELF');
    await loadProducts(stack, [{ sku: item, priceCents: 700 }]);
    const response = await stack.gql(
      PLACE,
      { input: { idempotencyKey: newId(), lines: [{ sku: item, quantity: 3 }] } },
      bearer(await tokens.customer(customerId)),
    );
    expect(dataOf(response).placeOrder).toMatchObject({ totalCents: 2100, customer: { id: customerId } });
  });

  it('staff must name the customer: BAD_USER_INPUT before any request', async () => {
    const measured = await stack.measure(PLACE, { input: { idempotencyKey: newId(), lines: [{ sku: 'A', quantity: 1 }] } });
    expectError(measured.response, 'BAD_USER_INPUT');
    expect(measured.response.errors![0]!.extensions!.field).toBe('input.customerId');
    expect(measured.wire).toHaveLength(0);
  });

  it('takes a staff placedAt up to 5 minutes ahead (clock skew), and refuses one further in the future', async () => {
    const customerId = await createCustomer();
    const item = sku('WHEN');
    await loadProducts(stack, [{ sku: item, priceCents: 100 }]);
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const lines = [{ sku: item, quantity: 1 }];
    dataOf(await stack.gql(PLACE, { input: { customerId, idempotencyKey: newId(), lines, placedAt: at(60_000) } }));
    const { response, wire } = await expectUnchanged('BAD_USER_INPUT', () =>
      stack.gql(PLACE, { input: { customerId, idempotencyKey: newId(), lines, placedAt: at(6 * 60_000) } }),
    );
    expect(response.errors![0]!.extensions!.field).toBe('input.placedAt');
    expect(wire).toHaveLength(0);
  });
});
