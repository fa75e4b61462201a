/**
 * Session consistency on the faithful engine (eventually consistent GetItem/BatchGetItem/Query: a
 * stale or absent answer for up to 200 ms after a write; GSI lag). The exact screens (`me`,
 * `customer`, `order`, `product`, `node`) read eventually, and with ConsistentRead, at the same
 * request count, only after their principal's own write: remembered by the server that took the
 * write, or told by the `x-read-after` token on any server; `x-consistency` decides explicitly.
 * `Order.customer` reads eventually and, only when that misses a customer the order proves, once
 * more strongly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, testAuthenticator, tokens } from './support/auth';
import { expectBudget, loadProducts } from './support/fixtures';
import { dataOf } from './support/graphql';
import { newId } from '../src/model';
import { startServer, type RunningServer } from '../src/http/server';
import { SessionConsistency } from '../src/request/consistency';

let stack: Stack;
/** A second server on the same table: another process (or Lambda container) that took none of the writes. */
let peer: RunningServer;
/** The stack server's clock runs `ahead` ms ahead of the peer's (the window test moves it). */
let ahead = 0;
const session = new SessionConsistency({ windowMs: 5_000, now: () => Date.now() + ahead });

beforeAll(async () => {
  stack = await startStack({ engine: { consistency: 'eventual', staleReadMs: 200, gsiLagMs: 200 }, session });
  peer = await startServer({
    table: stack.table,
    authenticate: await testAuthenticator(),
    production: false,
    quotas: { readsPerMinute: 1e12, writesPerMinute: 1e12 },
    logger: pino({ level: 'silent' }),
    port: 0,
    host: '127.0.0.1',
  });
  await loadProducts(stack, [{ sku: 'CONS-1', priceCents: 250 }]);
  await stack.settled();
}, 60_000);

afterAll(async () => {
  await peer?.close();
  await stack?.close();
});

const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name } }`;
const RENAME = `mutation($id: ID!, $name: String!) { updateCustomer(id: $id, input: { name: $name }) { id name } }`;
const ME = `{ me { id name email } }`;
const CUSTOMER = `query($id: ID!) { customer(id: $id) { id name email } }`;
const SCREEN = `query($id: ID!) { customer(id: $id) { id name addresses { label } orders(first: 5) { nodes { id } } } }`;
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id totalCents customer { id name } } }`;
const ORDER = `query($id: ID!) { order(id: $id) { id totalCents } }`;

const email = (name: string) => `${name}.${newId().toLowerCase()}@example.com`;

/** One operation sent to the peer server, with the DynamoDB requests it caused. */
async function onPeer(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  stack.engine.wire.reset();
  const res = await fetch(peer.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const response = { status: res.status, headers: res.headers, ...(await res.json()) } as GraphQLResponse;
  return { response, wire: stack.engine.wire.requests() };
}

const strongly = (wire: Array<{ body: Record<string, unknown> }>) => wire.map((request) => request.body.ConsistentRead === true);

describe('a principal reads its own writes', () => {
  it('on the server that took the write: me right after createCustomer, one GetItem with ConsistentRead', async () => {
    for (let i = 0; i < 5; i++) {
      const id = newId();
      const as = bearer(await tokens.customer(id));
      const input = { name: `Ana ${i}`, email: email('ana') };
      expect(dataOf(await stack.gql(CREATE, { input }, as)).createCustomer).toEqual({ id, name: input.name });
      const measured = await stack.measure(ME, {}, as);
      expectBudget(measured, { requests: 1, waves: 1, operations: ['GetItem'] });
      expect(strongly(measured.wire)).toEqual([true]);
      expect(measured.response.data).toEqual({ me: { id, name: input.name, email: input.email } });
      expect(measured.response.extensions?.dynamodb?.consistency).toEqual({ strong: true, reason: 'own-write' });
    }
  });

  it('on another server, with the x-read-after token the mutation answered (header and extension alike)', async () => {
    const stale: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      const id = newId();
      const as = bearer(await tokens.customer(id));
      const created = await stack.gql(CREATE, { input: { name: `Bea ${i}`, email: email('bea') } }, as);
      const token = created.headers.get('x-read-after');
      expect(token).toMatch(/^rw1\.[0-9a-z]+\.[A-Za-z0-9_-]{11}$/);
      expect(created.extensions?.readAfter).toEqual({ token, until: expect.any(String) });
      const renamed = await stack.gql(RENAME, { id, name: `Bea ${i} B` }, as);
      expect(renamed.errors).toBeUndefined();

      const told = await onPeer(SCREEN, { id }, { ...as, 'x-read-after': renamed.headers.get('x-read-after')! });
      expect(told.wire.map((request) => request.operation)).toEqual(['Query']);
      expect(strongly(told.wire)).toEqual([true]);
      expect(told.response.data).toEqual({ customer: { id, name: `Bea ${i} B`, addresses: [], orders: { nodes: [] } } });
      expect(told.response.extensions?.dynamodb?.consistency).toEqual({ strong: true, reason: 'read-after' });

      // The peer took no write of this principal: without the token it reads eventually (half the capacity).
      const untold = await onPeer(CUSTOMER, { id }, as);
      expect(strongly(untold.wire)).toEqual([false]);
      expect(untold.response.extensions?.dynamodb?.consistency).toEqual({ strong: false, reason: 'default' });
      stale.push((untold.response.data as { customer: { name: string } | null }).customer?.name !== `Bea ${i} B`);
    }
    // The engine serves stale answers right after a write: the token is what made the first read right.
    expect(stale.some(Boolean)).toBe(true);
  });

  it('order(id) and product(sku) right after placeOrder and putProduct', async () => {
    const PUT = `mutation($input: ProductInput!) { putProduct(input: $input) { sku priceCents } }`;
    const READ = `query($sku: ID!) { product(sku: $sku) { sku priceCents } }`;
    for (let price = 100; price < 104; price++) {
      const put = await stack.gql(PUT, { input: { sku: 'CONS-2', name: 'Two', priceCents: price, active: true } });
      const measured = await onPeer(
        READ,
        { sku: 'CONS-2' },
        { ...bearer(await tokens.staff()), 'x-read-after': put.headers.get('x-read-after')! },
      );
      expectBudget(measured, { requests: 1, waves: 1, operations: ['GetItem'] });
      expect(strongly(measured.wire)).toEqual([true]);
      expect(measured.response.data).toEqual({ product: { sku: 'CONS-2', priceCents: price } });
    }
    const id = newId();
    const as = bearer(await tokens.customer(id));
    await stack.gql(CREATE, { input: { name: 'Cid', email: email('cid') } }, as);
    for (let i = 0; i < 4; i++) {
      const placed = await stack.gql(PLACE, { input: { idempotencyKey: `o-${i}`, lines: [{ sku: 'CONS-1', quantity: 1 }] } }, as);
      const orderId = (dataOf(placed).placeOrder as { id: string }).id;
      const measured = await stack.measure(ORDER, { id: orderId }, as);
      expect(strongly(measured.wire)).toEqual([true]);
      expect(measured.response.data).toEqual({ order: { id: orderId, totalCents: 250 } });
    }
  });
});

describe('everyone else reads eventually, at half the capacity', () => {
  it("another principal's screen of a customer just written: the same one request, without ConsistentRead", async () => {
    const { id } = dataOf(await stack.gql(CREATE, { input: { name: 'Dee', email: email('dee') } })).createCustomer as { id: string };
    const other = bearer(await tokens.staffAs('staff-who-wrote-nothing'));
    const measured = await stack.measure(SCREEN, { id }, other);
    expect(measured.wire.map((request) => request.operation)).toEqual(['Query']);
    expect(strongly(measured.wire)).toEqual([false]);
    await stack.settled();
    expect((await stack.gql(CUSTOMER, { id }, other)).data).toEqual({ customer: { id, name: 'Dee', email: expect.any(String) } });
  });

  it('a token of another principal, or older than the window, is ignored', async () => {
    const id = newId();
    const as = bearer(await tokens.customer(id));
    const created = await stack.gql(CREATE, { input: { name: 'Eve', email: email('eve') } }, as);
    const token = created.headers.get('x-read-after')!;
    const other = await onPeer(CUSTOMER, { id }, { ...bearer(await tokens.staffAs('staff-2')), 'x-read-after': token });
    expect(strongly(other.wire)).toEqual([false]);

    // This principal's own token (the dev issuer's subject of this customer): honoured fresh, ignored 5,001 ms old.
    const principal = { kind: 'customer', subject: `dev-customer-${id}`, customerId: id } as const;
    const fresh = new SessionConsistency({ windowMs: 5_000 }).wrote(principal);
    expect(strongly((await onPeer(CUSTOMER, { id }, { ...as, 'x-read-after': fresh!.token })).wire)).toEqual([true]);
    const old = new SessionConsistency({ windowMs: 5_000, now: () => Date.now() - 5_001 }).wrote(principal);
    const expired = await onPeer(CUSTOMER, { id }, { ...as, 'x-read-after': old!.token });
    expect(strongly(expired.wire)).toEqual([false]);
  });

  it("the server forgets a principal's write after the window", async () => {
    const id = newId();
    const as = bearer(await tokens.customer(id));
    await stack.gql(CREATE, { input: { name: 'Fay', email: email('fay') } }, as);
    try {
      ahead = 4_000;
      expect(strongly((await stack.measure(ME, {}, as)).wire)).toEqual([true]);
      ahead = 5_000; // the write is now at least 5 s old
      expect(strongly((await stack.measure(ME, {}, as)).wire)).toEqual([false]);
    } finally {
      ahead = 0;
    }
  });
});

describe('a client decides explicitly', () => {
  it('x-consistency: strong reads strongly without a write; eventual declines the window', async () => {
    const { id } = dataOf(await stack.gql(CREATE, { input: { name: 'Gus', email: email('gus') } })).createCustomer as { id: string };
    const reader = bearer(await tokens.staffAs('staff-reader'));
    const strong = await onPeer(CUSTOMER, { id }, { ...reader, 'x-consistency': 'strong' });
    expect(strongly(strong.wire)).toEqual([true]);
    expect(strong.response.data).toEqual({ customer: { id, name: 'Gus', email: expect.any(String) } });
    expect(strong.response.extensions?.dynamodb?.consistency).toEqual({ strong: true, reason: 'asked' });
    const eventual = await stack.measure(CUSTOMER, { id }, { 'x-consistency': 'eventual' });
    expect(strongly(eventual.wire)).toEqual([false]);
  });

  it.each([
    ['x-consistency', 'linearizable', /x-consistency must be strong or eventual/],
    ['x-read-after', 'not-a-token', /x-read-after is not a read-your-writes token/],
  ])('a malformed %s is 400 BAD_REQUEST, before any read', async (header, value, message) => {
    const measured = await stack.measure(ME, {}, { [header]: value });
    expect(measured.response.status).toBe(400);
    expect(measured.response.errors).toEqual([{ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } }]);
    expect(measured.wire).toEqual([]);
  });

  it('a response that wrote nothing carries no token', async () => {
    const read = await stack.gql(ME, {}, bearer(await tokens.customer(newId())));
    expect(read.headers.get('x-read-after')).toBeNull();
    expect(read.extensions?.readAfter).toBeUndefined();
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
