import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, operations, type Stack } from './support/stack';
import { CUSTOMER_FIELDS, dataOf, expectError, ORDER_FIELDS } from './support/graphql';
import { loadProducts } from './support/fixtures';
import { idempotencyToItem, MAX_ADDRESSES, MAX_LINES, newId, shardOf } from '../src/model';
import type { Item } from '../src/dynamo/table';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  // The catalog the orders below are priced from (placeOrder takes no price from the client).
  await loadProducts(stack, [
    { sku: 'BOOK-1', priceCents: 1250 },
    { sku: 'MUG-2', priceCents: 899 },
    { sku: 'OTHER', priceCents: 1 },
    { sku: 'A', priceCents: 100 },
    { sku: 'PRICEY', priceCents: 100_000_000 },
    ...Array.from({ length: MAX_LINES }, (_, i) => ({ sku: `SKU-${i}`, priceCents: 100 })),
  ]);
});
afterAll(async () => { await stack?.close(); });

let emailSeq = 0;
const freshEmail = (tag = 'user') => `${tag}.${++emailSeq}.${Date.now()}@example.com`;

const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { ${CUSTOMER_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { ${CUSTOMER_FIELDS} } }`;
const PUT_ADDRESS = `mutation($customerId: ID!, $input: AddressInput!) { putAddress(customerId: $customerId, input: $input) { label street city postalCode country } }`;
const REMOVE_ADDRESS = `mutation($customerId: ID!, $label: String!) { removeAddress(customerId: $customerId, label: $label) }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_FIELDS} } }`;
const MOVE = `mutation($id: ID!, $status: OrderStatus!) { updateOrderStatus(id: $id, status: $status) { id status } }`;

async function createCustomer(name = 'Ana', email = freshEmail()) {
  return dataOf(await stack.gql(CREATE, { input: { name, email } })).createCustomer as { id: string; name: string; email: string; createdAt: string };
}

const address = (label: string) => ({ label, street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' });
const lines = [{ sku: 'BOOK-1', quantity: 2 }, { sku: 'MUG-2', quantity: 1 }];

async function placeOrder(customerId: string, idempotencyKey = `key-${newId()}`, orderLines = lines) {
  return dataOf(await stack.gql(PLACE, { input: { customerId, idempotencyKey, lines: orderLines } })).placeOrder as { id: string; placedAt: string; status: string; totalCents: number };
}

/** Runs `mutate` and asserts it failed with `code`, made no request at all when `requests` is 0, and left the table as it was. */
async function expectRefused(code: string, mutate: () => Promise<any>, options: { requests?: number } = {}) {
  const before = await stack.items();
  stack.engine.wire.reset();
  const response = await mutate();
  const wire = stack.engine.wire.requests();
  expectError(response, code);
  if (options.requests !== undefined) expect(wire).toHaveLength(options.requests);
  expect(sortItems(await stack.items())).toEqual(sortItems(before));
  return response;
}

function sortItems(items: Item[]) {
  return [...items].sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

async function itemsUnder(pk: string) {
  return (await stack.items()).filter((item) => item.PK === pk);
}

describe('createCustomer', () => {
  it('writes the profile and the email guard in one TransactWriteItems and answers from what it wrote', async () => {
    const email = freshEmail('Ana.Create');
    const { response, wire } = await stack.measure(
      `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { ${CUSTOMER_FIELDS} addresses { label } orders(first: 5) { nodes { id } pageInfo { hasNextPage endCursor } } } }`,
      { input: { name: '  Ana García ', email } },
    );
    const created = dataOf(response).createCustomer;
    expect(operations(wire)).toEqual(['TransactWriteItems']);
    expect(wire[0]!.body.TransactItems).toHaveLength(2);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Ana García',
      email,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      addresses: [],
      orders: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } },
    });
    const guard = (await stack.items()).find((item) => item.PK === `EMAIL#${email.toLowerCase()}`);
    expect(guard).toMatchObject({ SK: 'EMAIL', customerId: created.id });
    const read = dataOf(await stack.gql(`query($id: ID!) { customer(id: $id) { ${CUSTOMER_FIELDS} } }`, { id: created.id }));
    expect(read.customer).toEqual({ id: created.id, name: 'Ana García', email, createdAt: created.createdAt });
  });

  it('refuses an email already taken, in any letter case, with CONFLICT and writes nothing', async () => {
    const email = freshEmail('taken');
    await createCustomer('First', email);
    await expectRefused('CONFLICT', () => stack.gql(CREATE, { input: { name: 'Second', email: email.toUpperCase() } }));
  });

  it('gives one email to exactly one of 8 concurrent creators', async () => {
    const email = freshEmail('race');
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => stack.gql(CREATE, { input: { name: `Racer ${i}`, email } })));
    const winners = responses.filter((r) => r.data?.createCustomer);
    expect(winners).toHaveLength(1);
    expect(responses.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(7);
    const all = await stack.items();
    expect(all.filter((item) => item.SK === 'PROFILE' && String(item.email).toLowerCase() === email.toLowerCase())).toHaveLength(1);
    expect(all.filter((item) => item.PK === `EMAIL#${email.toLowerCase()}`)).toEqual([expect.objectContaining({ customerId: winners[0]!.data.createCustomer.id })]);
  });

  it.each([
    ['an empty name', { name: '   ', email: 'x@example.com' }],
    ['an oversized name', { name: 'n'.repeat(201), email: 'x@example.com' }],
    ['a malformed email', { name: 'Ana', email: 'not-an-email' }],
    ['an email holding the key separator', { name: 'Ana', email: 'a#b@example.com' }],
    ['an oversized email', { name: 'Ana', email: `${'a'.repeat(250)}@example.com` }],
  ])('refuses %s with BAD_USER_INPUT before any request', async (_case, input) => {
    await expectRefused('BAD_USER_INPUT', () => stack.gql(CREATE, { input }), { requests: 0 });
  });
});

describe('updateCustomer', () => {
  it('renames with one conditional UpdateItem', async () => {
    const customer = await createCustomer('Old Name');
    const { response, wire } = await stack.measure(UPDATE, { id: customer.id, input: { name: 'New Name' } });
    expect(dataOf(response).updateCustomer).toEqual({ ...customer, name: 'New Name' });
    expect(operations(wire)).toEqual(['UpdateItem']);
  });

  it('moves the email guard and the GSI1 key in the same transaction as the profile', async () => {
    const customer = await createCustomer('Mover');
    const newEmail = freshEmail('moved');
    const { response, wire } = await stack.measure(UPDATE, { id: customer.id, input: { email: newEmail } });
    expect(dataOf(response).updateCustomer).toEqual({ ...customer, email: newEmail });
    expect(operations(wire)).toEqual(['GetItem', 'TransactWriteItems']);
    const all = await stack.items();
    expect(all.find((item) => item.PK === `EMAIL#${customer.email.toLowerCase()}`)).toBeUndefined();
    expect(all.find((item) => item.PK === `EMAIL#${newEmail.toLowerCase()}`)).toMatchObject({ customerId: customer.id });
    const byEmail = `query($email: String!) { customerByEmail(email: $email) { id } }`;
    expect(dataOf(await stack.gql(byEmail, { email: newEmail.toUpperCase() })).customerByEmail).toEqual({ id: customer.id });
    expect(dataOf(await stack.gql(byEmail, { email: customer.email })).customerByEmail).toBeNull();
    // The old email is free again.
    await createCustomer('Taker', customer.email);
  });

  it('refuses an email that another customer holds with CONFLICT and changes nothing', async () => {
    const holder = await createCustomer('Holder');
    const customer = await createCustomer('Wanter');
    await expectRefused('CONFLICT', () => stack.gql(UPDATE, { id: customer.id, input: { name: 'Changed', email: holder.email } }));
  });

  it('answers NOT_FOUND for a missing customer and BAD_USER_INPUT for a malformed id', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(UPDATE, { id: newId(), input: { name: 'Nobody' } }));
    await expectRefused('NOT_FOUND', () => stack.gql(UPDATE, { id: newId(), input: { email: freshEmail() } }));
    await expectRefused('BAD_USER_INPUT', () => stack.gql(UPDATE, { id: 'CUSTOMER#1', input: { name: 'X' } }), { requests: 0 });
  });

  it('leaves exactly one guard, matching the profile, after 8 concurrent email changes', async () => {
    const customer = await createCustomer('Racer');
    const emails = Array.from({ length: 8 }, () => freshEmail('swap'));
    const responses = await Promise.all(emails.map((email) => stack.gql(UPDATE, { id: customer.id, input: { email } })));
    for (const response of responses) {
      if (response.errors) expect(response.errors[0]!.extensions?.code).toBe('CONFLICT');
    }
    expect(responses.some((r) => r.data?.updateCustomer)).toBe(true);
    const all = await stack.items();
    const profile = all.find((item) => item.PK === `CUSTOMER#${customer.id}` && item.SK === 'PROFILE')!;
    const guards = all.filter((item) => item.SK === 'EMAIL' && item.customerId === customer.id);
    expect(guards.map((g) => g.PK)).toEqual([`EMAIL#${String(profile.email).toLowerCase()}`]);
    expect(profile.GSI1PK).toBe(`EMAIL#${String(profile.email).toLowerCase()}`);
  });
});

describe('addresses', () => {
  it('adds, replaces and removes an address; the customer screen shows the result', async () => {
    const customer = await createCustomer('Addressee');
    expect(dataOf(await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address('home') })).putAddress).toEqual(address('home'));
    const moved = { ...address('home'), street: 'Gran Vía 2' };
    expect(dataOf(await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: moved })).putAddress).toEqual(moved);
    await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address('work') });
    const screen = `query($id: ID!) { customer(id: $id) { addresses { label street city postalCode country } } }`;
    expect(dataOf(await stack.gql(screen, { id: customer.id })).customer.addresses).toEqual([moved, address('work')]);
    expect(dataOf(await stack.gql(REMOVE_ADDRESS, { customerId: customer.id, label: 'home' })).removeAddress).toBe(true);
    expect(dataOf(await stack.gql(REMOVE_ADDRESS, { customerId: customer.id, label: 'home' })).removeAddress).toBe(false);
    expect(dataOf(await stack.gql(screen, { id: customer.id })).customer.addresses).toEqual([address('work')]);
  });

  it(`holds at most ${MAX_ADDRESSES} addresses per customer, even when 12 are added concurrently`, async () => {
    const customer = await createCustomer('Collector');
    const labels = Array.from({ length: 12 }, (_, i) => `label-${i}`);
    const responses = await Promise.all(labels.map((label) => stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address(label) })));
    expect(responses.filter((r) => r.data?.putAddress)).toHaveLength(MAX_ADDRESSES);
    expect(responses.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(12 - MAX_ADDRESSES);
    const collection = await itemsUnder(`CUSTOMER#${customer.id}`);
    const stored = collection.filter((item) => String(item.SK).startsWith('PROFILE#ADDRESS#')).map((item) => item.label).sort();
    const profile = collection.find((item) => item.SK === 'PROFILE')!;
    expect(stored).toHaveLength(MAX_ADDRESSES);
    expect([...(profile.addressLabels as Set<string>)].sort()).toEqual(stored);
    await expectRefused('CONFLICT', () => stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address('one-more') }));
    // Replacing an existing label is still allowed at the bound.
    expect(dataOf(await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: { ...address(String(stored[0])), city: 'Toledo' } })).putAddress.city).toBe('Toledo');
  });

  it('answers NOT_FOUND for a missing customer and writes nothing', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(PUT_ADDRESS, { customerId: newId(), input: address('home') }));
    await expectRefused('NOT_FOUND', () => stack.gql(REMOVE_ADDRESS, { customerId: newId(), label: 'home' }));
  });

  it.each([
    ['a label holding the key separator', { ...address('x'), label: 'home#1' }],
    ['an empty street', { ...address('home'), street: ' ' }],
    ['an oversized city', { ...address('home'), city: 'c'.repeat(101) }],
  ])('refuses %s with BAD_USER_INPUT before any request', async (_case, input) => {
    const customer = await createCustomer('Picky');
    await expectRefused('BAD_USER_INPUT', () => stack.gql(PUT_ADDRESS, { customerId: customer.id, input }), { requests: 0 });
  });
});

describe('placeOrder', () => {
  it('reads the catalog prices, then writes summary, header, lines and idempotency record in one TransactWriteItems, with the total computed here', async () => {
    const customer = await createCustomer('Buyer');
    const placedAt = '2026-09-15T10:30:00Z';
    const { response, wire } = await stack.measure(PLACE, { input: { customerId: customer.id, idempotencyKey: 'order-1', lines, placedAt } });
    const order = dataOf(response).placeOrder;
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(response.extensions?.dynamodb?.waves).toBe(2);
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      placedAt: '2026-09-15T10:30:00.000Z',
      status: 'PENDING',
      totalCents: 2 * 1250 + 899,
      lines: [
        { lineNo: 1, sku: 'BOOK-1', quantity: 2, unitPriceCents: 1250 },
        { lineNo: 2, sku: 'MUG-2', quantity: 1, unitPriceCents: 899 },
      ],
    });
    const all = await stack.items();
    expect(all.find((i) => i.PK === `CUSTOMER#${customer.id}` && i.SK === `ORDER#2026-09-15T10:30:00.000Z#${order.id}`))
      .toMatchObject({ GSI1PK: `STATUS#PENDING#${shardOf(order.id)}`, GSI1SK: `2026-09-15T10:30:00.000Z#${order.id}`, totalCents: 3399 });
    expect(all.filter((i) => i.PK === `ORDER#${order.id}`).map((i) => i.SK).sort()).toEqual(['LINE#0001', 'LINE#0002', 'ORDER']);
    const record = all.find((i) => i.PK === `IDEMPOTENCY#${customer.id}#order-1`)!;
    const now = Date.now() / 1000;
    expect(record.orderId).toBe(order.id);
    expect(record.expiresAt).toBeGreaterThan(now + 23 * 3600);
    expect(record.expiresAt).toBeLessThan(now + 25 * 3600);
    // Only the idempotency record carries the TTL attribute.
    expect(all.filter((i) => 'expiresAt' in i).every((i) => String(i.PK).startsWith('IDEMPOTENCY#'))).toBe(true);
  });

  it('returns the same order for the same key and payload, and writes nothing new', async () => {
    const customer = await createCustomer('Replayer');
    const first = await placeOrder(customer.id, 'replay-1');
    const before = await stack.items();
    const again = await placeOrder(customer.id, 'replay-1');
    expect(again).toEqual(first);
    expect((await stack.items()).length).toBe(before.length);
  });

  it('refuses the same key with another payload with CONFLICT', async () => {
    const customer = await createCustomer('Conflicted');
    await placeOrder(customer.id, 'reused-1');
    await expectRefused('CONFLICT', () => stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: 'reused-1', lines: [{ sku: 'OTHER', quantity: 1 }] } }));
  });

  it('treats an expired idempotency record that DynamoDB has not deleted yet as absent', async () => {
    const customer = await createCustomer('Late');
    const stale = idempotencyToItem({ customerId: customer.id, key: 'expired-1', orderId: newId(), fingerprint: 'another payload', expiresAt: Math.floor(Date.now() / 1000) - 60 });
    await stack.load([stale]);
    const order = await placeOrder(customer.id, 'expired-1');
    const record = (await stack.items()).find((i) => i.PK === `IDEMPOTENCY#${customer.id}#expired-1`)!;
    expect(record.orderId).toBe(order.id);
    expect(record.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('makes one order of 8 concurrent calls with one key', async () => {
    const customer = await createCustomer('Impatient');
    const responses = await Promise.all(Array.from({ length: 8 }, () =>
      stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: 'race-1', lines } })));
    const ids = new Set(responses.map((r) => dataOf(r).placeOrder.id));
    expect(ids.size).toBe(1);
    const headers = (await stack.items()).filter((i) => i.SK === 'ORDER' && i.customerId === customer.id);
    expect(headers.map((h) => h.id)).toEqual([...ids]);
    const summaries = (await itemsUnder(`CUSTOMER#${customer.id}`)).filter((i) => String(i.SK).startsWith('ORDER#'));
    expect(summaries).toHaveLength(1);
  });

  it('answers NOT_FOUND for a missing customer and writes nothing', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(PLACE, { input: { customerId: newId(), idempotencyKey: 'nobody-1', lines } }));
  });

  it(`takes ${MAX_LINES} lines, the most one transaction holds`, async () => {
    const customer = await createCustomer('Bulk');
    const many = Array.from({ length: MAX_LINES }, (_, i) => ({ sku: `SKU-${i}`, quantity: 1 }));
    const { response, wire } = await stack.measure(`mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { totalCents lines { lineNo } } }`,
      { input: { customerId: customer.id, idempotencyKey: 'bulk-1', lines: many } });
    const order = dataOf(response).placeOrder;
    expect(order.totalCents).toBe(MAX_LINES * 100);
    expect(order.lines).toHaveLength(MAX_LINES);
    // 96 distinct SKUs are still one BatchGetItem (≤ 100 keys).
    expect(operations(wire)).toEqual(['BatchGetItem', 'TransactWriteItems']);
    expect(wire[0]!.body.RequestItems.app.Keys).toHaveLength(MAX_LINES);
    expect(wire[1]!.body.TransactItems).toHaveLength(100);
  });

  const bad = (patch: Record<string, unknown>) => async () => {
    const customer = await createCustomer('Bad');
    return stack.gql(PLACE, { input: { customerId: customer.id, idempotencyKey: `bad-${newId()}`, lines, ...patch } });
  };
  it.each([
    ['a quantity of 0', { lines: [{ sku: 'A', quantity: 0 }] }],
    ['a negative quantity', { lines: [{ sku: 'A', quantity: -2 }] }],
    ['no lines', { lines: [] }],
    [`${MAX_LINES + 1} lines (more than one transaction holds)`, { lines: Array.from({ length: MAX_LINES + 1 }, () => ({ sku: 'A', quantity: 1 })) }],
    ['a total beyond Int (at catalog prices)', { lines: [{ sku: 'PRICEY', quantity: 100000 }] }],
    ['a sku holding the key separator', { lines: [{ sku: 'A#B', quantity: 1 }] }],
    ['a placedAt in the future (beyond 5 minutes of clock skew)', { placedAt: new Date(Date.now() + 10 * 60_000).toISOString() }],
    ['an idempotency key holding the key separator', { idempotencyKey: 'k#1' }],
    ['an empty idempotency key', { idempotencyKey: '' }],
    ['a malformed placedAt', { placedAt: 'yesterday' }],
    ['a placedAt that is not UTC', { placedAt: '2026-09-01T10:00:00+02:00' }],
  ])('refuses %s with BAD_USER_INPUT and writes nothing', async (_case, patch) => {
    const mutate = bad(patch);
    const before = await stack.items();
    const response = await mutate();
    expectError(response, 'BAD_USER_INPUT');
    // The only new items are those of the customer the case created.
    const after = await stack.items();
    expect(after.filter((i) => !String(i.PK).startsWith('CUSTOMER#') && !String(i.PK).startsWith('EMAIL#'))).toEqual(
      before.filter((i) => !String(i.PK).startsWith('CUSTOMER#') && !String(i.PK).startsWith('EMAIL#')));
    expect(after.length - before.length).toBe(2);
  });

  it('refuses a malformed customer id before any request', async () => {
    await expectRefused('BAD_USER_INPUT', () => stack.gql(PLACE, { input: { customerId: 'x#y', idempotencyKey: 'k', lines } }), { requests: 0 });
  });
});

describe('updateOrderStatus', () => {
  const statusOf = async (orderId: string) => {
    const all = await stack.items();
    const header = all.find((i) => i.PK === `ORDER#${orderId}` && i.SK === 'ORDER')!;
    const summary = all.find((i) => i.SK === `ORDER#${header.placedAt}#${orderId}`)!;
    return { header: header.status, summary: summary.status, index: summary.GSI1PK };
  };

  it('walks PENDING → PAID → SHIPPED → DELIVERED, moving header, summary and GSI1 key together', async () => {
    const customer = await createCustomer('Walker');
    const order = await placeOrder(customer.id);
    for (const status of ['PAID', 'SHIPPED', 'DELIVERED']) {
      const { response, wire } = await stack.measure(MOVE, { id: order.id, status });
      expect(dataOf(response).updateOrderStatus).toEqual({ id: order.id, status });
      expect(operations(wire)).toEqual(['GetItem', 'TransactWriteItems']);
      expect(await statusOf(order.id)).toEqual({ header: status, summary: status, index: `STATUS#${status}#${shardOf(order.id)}` });
    }
    const byStatus = `query($status: OrderStatus!) { ordersByStatus(status: $status, first: 100) { nodes { id } } }`;
    expect(dataOf(await stack.gql(byStatus, { status: 'DELIVERED' })).ordersByStatus.nodes).toContainEqual({ id: order.id });
    expect(dataOf(await stack.gql(byStatus, { status: 'PENDING' })).ordersByStatus.nodes).not.toContainEqual({ id: order.id });
  });

  it.each([
    [['PAID', 'SHIPPED', 'DELIVERED'], 'CANCELLED'],
    [['PAID', 'SHIPPED'], 'CANCELLED'],
    [[], 'SHIPPED'],
    [[], 'PENDING'],
    [['CANCELLED'], 'PAID'],
  ])('refuses a forbidden move (after %j, to %s) with CONFLICT and changes nothing', async (path, to) => {
    const customer = await createCustomer('Stuck');
    const order = await placeOrder(customer.id);
    for (const status of path) await stack.gql(MOVE, { id: order.id, status });
    await expectRefused('CONFLICT', () => stack.gql(MOVE, { id: order.id, status: to }));
  });

  it('answers NOT_FOUND for a missing order and BAD_USER_INPUT for a malformed id', async () => {
    await expectRefused('NOT_FOUND', () => stack.gql(MOVE, { id: newId(), status: 'PAID' }));
    await expectRefused('BAD_USER_INPUT', () => stack.gql(MOVE, { id: 'ORDER#x', status: 'PAID' }), { requests: 0 });
  });

  it('keeps every copy in agreement when 8 moves race', async () => {
    const customer = await createCustomer('Racer');
    const order = await placeOrder(customer.id);
    const targets = ['PAID', 'CANCELLED', 'PAID', 'SHIPPED', 'CANCELLED', 'PAID', 'DELIVERED', 'CANCELLED'];
    const responses = await Promise.all(targets.map((status) => stack.gql(MOVE, { id: order.id, status })));
    for (const response of responses) {
      if (response.errors) expect(response.errors[0]!.extensions?.code).toBe('CONFLICT');
    }
    const landed = responses.filter((r) => r.data?.updateOrderStatus).map((r) => r.data.updateOrderStatus.status);
    expect(landed.length).toBeGreaterThan(0);
    const final = await statusOf(order.id);
    expect(final.summary).toBe(final.header);
    expect(final.index).toBe(`STATUS#${final.header}#${shardOf(order.id)}`);
    expect(landed).toContain(final.header);
  });
});
