/**
 * The write path for customers: createCustomer, updateCustomer and the address mutations — one
 * conditional write or transaction each, the email guard kept unique under concurrency, the
 * address bound held, and every refusal leaving the table as it was. Orders are in
 * write-path-orders.int.test.ts; the shared mutations and helpers are in support/write-path.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, operations, type Stack } from './support/stack';
import { CUSTOMER_FIELDS, dataOf } from './support/graphql';
import { address, CREATE, freshEmail, PUT_ADDRESS, REMOVE_ADDRESS, UPDATE, writeHelpers } from './support/write-path';
import { MAX_ADDRESSES, newId } from '../src/model';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const { createCustomer, expectRefused, itemsUnder } = writeHelpers(() => stack);

describe('createCustomer', () => {
  it('writes the profile, the email guard and the CustomerCreated event in one TransactWriteItems and answers from what it wrote', async () => {
    const email = freshEmail('Ana.Create');
    const { response, wire } = await stack.measure(
      `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { ${CUSTOMER_FIELDS} addresses { label } orders(first: 5) { nodes { id } pageInfo { hasNextPage endCursor } } } }`,
      { input: { name: '  Ana García ', email } },
    );
    const created = dataOf(response).createCustomer;
    expect(operations(wire)).toEqual(['TransactWriteItems']);
    expect(wire[0]!.body.TransactItems).toHaveLength(3);
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
    expect(all.filter((item) => item.PK === `EMAIL#${email.toLowerCase()}`)).toEqual([
      expect.objectContaining({ customerId: winners[0]!.data.createCustomer.id }),
    ]);
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
  it('renames with a consistent read of the profile (its event sequence), then one transaction with its event', async () => {
    const customer = await createCustomer('Old Name');
    const { response, wire } = await stack.measure(UPDATE, { id: customer.id, input: { name: 'New Name' } });
    expect(dataOf(response).updateCustomer).toEqual({ ...customer, name: 'New Name' });
    expect(operations(wire)).toEqual(['GetItem', 'TransactWriteItems']);
    expect(wire[1]!.body.TransactItems).toHaveLength(2);
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
    await stack.settled(); // customerByEmail reads GSI1, eventually consistent: wait for the move to show
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
    // A taken email is CONFLICT; a change that lost every round of the race is UNAVAILABLE (retryable).
    for (const response of responses) {
      if (response.errors) expect(['CONFLICT', 'UNAVAILABLE']).toContain(response.errors[0]!.extensions?.code);
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
    const stored = collection
      .filter((item) => String(item.SK).startsWith('PROFILE#ADDRESS#'))
      .map((item) => item.label)
      .sort();
    const profile = collection.find((item) => item.SK === 'PROFILE')!;
    expect(stored).toHaveLength(MAX_ADDRESSES);
    expect([...(profile.addressLabels as Set<string>)].sort()).toEqual(stored);
    await expectRefused('CONFLICT', () => stack.gql(PUT_ADDRESS, { customerId: customer.id, input: address('one-more') }));
    // Replacing an existing label is still allowed at the bound.
    expect(
      dataOf(await stack.gql(PUT_ADDRESS, { customerId: customer.id, input: { ...address(String(stored[0])), city: 'Toledo' } })).putAddress
        .city,
    ).toBe('Toledo');
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
