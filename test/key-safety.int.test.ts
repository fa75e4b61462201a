/**
 * Two inputs that stand in keys, made safe: an idempotency key belongs to the customer who sent
 * it (`IDEMPOTENCY#<customerId>#<key>`), and an email stands in keys in one canonical form
 * (Unicode NFKC, then lower-case), validated after NFKC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import { loadProducts } from './support/fixtures';
import { newId } from '../src/model';
import type { Item } from '../src/dynamo/table';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await loadProducts(stack, [
    { sku: 'KEY-1', priceCents: 500 },
    { sku: 'KEY-2', priceCents: 700 },
  ]);
});
afterAll(async () => {
  await stack?.close();
});

const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name email } }`;
const BY_EMAIL = `query($email: String!) { customerByEmail(email: $email) { id email } }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents customer { id } } }`;

let seq = 0;
const tag = () => `${++seq}${newId().slice(-6).toLowerCase()}`;
const byKey = (a: Item, b: Item) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`);

async function createCustomer(email = `key.${tag()}@example.com`): Promise<string> {
  return dataOf(await stack.gql(CREATE, { input: { name: 'Someone', email } })).createCustomer.id;
}

describe('idempotency keys belong to the customer', () => {
  it('makes two orders of one key sent by two customers, each replayed to its own', async () => {
    const [a, b] = [await createCustomer(), await createCustomer()];
    const key = `shared-${tag()}`;
    const lines = [{ sku: 'KEY-1', quantity: 1 }];
    const asA = bearer(await tokens.customer(a));
    const asB = bearer(await tokens.customer(b));
    const orderA = dataOf(await stack.gql(PLACE, { input: { idempotencyKey: key, lines } }, asA)).placeOrder;
    const orderB = dataOf(await stack.gql(PLACE, { input: { idempotencyKey: key, lines } }, asB)).placeOrder;
    expect(orderA.customer).toEqual({ id: a });
    expect(orderB.customer).toEqual({ id: b });
    expect(orderB.id).not.toBe(orderA.id);

    const records = (await stack.items()).filter(
      (item) => String(item.PK).startsWith('IDEMPOTENCY#') && String(item.PK).endsWith(`#${key}`),
    );
    expect(records.map((r) => [r.PK, r.orderId]).sort()).toEqual(
      [
        [`IDEMPOTENCY#${a}#${key}`, orderA.id],
        [`IDEMPOTENCY#${b}#${key}`, orderB.id],
      ].sort(),
    );

    // Each customer's replay is its own order; another payload under B's key does not touch A's.
    expect(dataOf(await stack.gql(PLACE, { input: { idempotencyKey: key, lines } }, asA)).placeOrder).toEqual(orderA);
    expect(dataOf(await stack.gql(PLACE, { input: { customerId: b, idempotencyKey: key, lines } })).placeOrder).toEqual(orderB);
    expectError(await stack.gql(PLACE, { input: { idempotencyKey: key, lines: [{ sku: 'KEY-2', quantity: 1 }] } }, asB), 'CONFLICT');
    expect(dataOf(await stack.gql(PLACE, { input: { idempotencyKey: key, lines } }, asA)).placeOrder).toEqual(orderA);
  });
});

describe('emails are canonical (NFKC, then lower-case) wherever they stand in a key', () => {
  it('takes "\\u212Aate@…" (KELVIN SIGN) and "kate@…" as one email: CONFLICT, and customerByEmail finds one customer by either', async () => {
    const local = `ate.${tag()}`;
    const kelvin = `\u212A${local}@example.com`;
    const plain = `k${local}@example.com`;
    const created = dataOf(await stack.gql(CREATE, { input: { name: 'Kate', email: kelvin } })).createCustomer;
    // Displayed as its NFKC form; keyed by the canonical form.
    expect(created.email).toBe(`K${local}@example.com`);
    const all = await stack.items();
    expect(all.find((item) => item.PK === `CUSTOMER#${created.id}` && item.SK === 'PROFILE')).toMatchObject({
      email: `K${local}@example.com`,
      GSI1PK: `EMAIL#${plain}`,
    });
    expect(all.find((item) => item.PK === `EMAIL#${plain}`)).toMatchObject({ SK: 'EMAIL', customerId: created.id });

    const before = (await stack.items()).sort(byKey);
    expectError(await stack.gql(CREATE, { input: { name: 'Other Kate', email: plain } }), 'CONFLICT');
    expectError(await stack.gql(CREATE, { input: { name: 'Third Kate', email: kelvin.toUpperCase() } }), 'CONFLICT');
    expect((await stack.items()).sort(byKey)).toEqual(before);

    await stack.settled(); // customerByEmail reads GSI1, eventually consistent: wait for the create to show
    for (const spelling of [kelvin, plain, plain.toUpperCase()]) {
      const measured = await stack.measure(BY_EMAIL, { email: spelling });
      expect(dataOf(measured.response).customerByEmail).toEqual({ id: created.id, email: `K${local}@example.com` });
      expect(operations(measured.wire)).toEqual(['Query']);
    }
  });

  it('checks the email after NFKC: a fullwidth "＃" is refused like "#", before any request; a fullwidth "＠" is an "@"', async () => {
    const before = (await stack.items()).sort(byKey);
    const refused = await stack.measure(CREATE, { input: { name: 'Hash', email: `a＃${tag()}@example.com` } });
    expectError(refused.response, 'BAD_USER_INPUT');
    expect(refused.wire).toHaveLength(0);
    expect((await stack.items()).sort(byKey)).toEqual(before);
    const lookup = await stack.measure(BY_EMAIL, { email: `a＃b@example.com` });
    expectError(lookup.response, 'BAD_USER_INPUT');
    expect(lookup.wire).toHaveLength(0);

    const local = `wide.${tag()}`;
    const created = dataOf(await stack.gql(CREATE, { input: { name: 'Wide', email: `${local}＠example.com` } })).createCustomer;
    expect(created.email).toBe(`${local}@example.com`);
    await stack.settled(); // customerByEmail reads GSI1, eventually consistent
    expect(dataOf(await stack.gql(BY_EMAIL, { email: `${local}@example.com` })).customerByEmail.id).toBe(created.id);
  });

  it('treats a change to another spelling of the same email as a display change: the profile and its event, the keys stay', async () => {
    const local = `ate.${tag()}`;
    const id = await createCustomer(`k${local}@example.com`);
    const measured = await stack.measure(
      `mutation($id: ID!, $email: String!) { updateCustomer(id: $id, input: { email: $email }) { email } }`,
      { id, email: `\u212A${local}@example.com` },
    );
    expect(dataOf(measured.response).updateCustomer.email).toBe(`K${local}@example.com`);
    expect(operations(measured.wire)).toEqual(['GetItem', 'TransactWriteItems']);
    // The profile's Update and the CustomerUpdated event: no guard moves, no GSI1 key changes.
    const actions = measured.wire[1]!.body.TransactItems as Array<Record<string, { UpdateExpression?: string }>>;
    expect(actions.map((action) => Object.keys(action)[0])).toEqual(['Update', 'Put']);
    expect(String(actions[0]!.Update!.UpdateExpression)).not.toContain('GSI1PK');
    const guards = (await stack.items()).filter((item) => item.SK === 'EMAIL' && item.customerId === id);
    expect(guards.map((guard) => guard.PK)).toEqual([`EMAIL#k${local}@example.com`]);
  });
});
