/**
 * What the development explorer stands on, over the real stack: the plan's keys
 * (`extensions.dynamodb.requests[].keys`, `partition`), `GET /dev/partition` per principal (a
 * refusal answers exactly like an empty partition), its bound, the page and its bundle, and all of
 * it absent in production. The page itself, in a browser: test/explorer.browser.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { buildCustomer, customerItems, loadProducts, type CustomerFixture } from './support/fixtures';
import { CATALOG_PK, customerKeys, newId, PARTITION_WINDOW_ROWS } from '../src/model';

let stack: Stack;
let production: Stack;
let a: CustomerFixture;
let b: CustomerFixture;
let big: CustomerFixture;
const who: Record<string, string | undefined> = {};

beforeAll(async () => {
  [stack, production] = await Promise.all([startStack(), startStack({ production: true })]);
  // Order 0 holds 60 lines: its lines sort before its header, past a whole-partition window.
  a = buildCustomer({ orders: 3, lines: (i) => (i === 0 ? 60 : 2) });
  b = buildCustomer({ orders: 2 });
  big = buildCustomer({ orders: 80, lines: () => 1 });
  await stack.load([...customerItems(a), ...customerItems(b), ...customerItems(big, { detail: false })], { streams: 4 });
  await loadProducts(stack, [
    { sku: 'BOOK-001', priceCents: 4299 },
    { sku: 'MUG-002', priceCents: 1250 },
  ]);
  await stack.settled();
  who.staff = await tokens.staff();
  who.a = await tokens.customer(a.customer.id);
  who.anonymous = undefined;
}, 60_000);

afterAll(async () => {
  await Promise.all([stack?.close(), production?.close()]);
});

async function partition(on: Stack, token: string | undefined, params: Record<string, string>) {
  const res = await fetch(`${new URL(on.server.url).origin}/dev/partition?${new URLSearchParams(params)}`, {
    headers: token ? bearer(token) : {},
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

const SCREEN = `{ me { id addresses { label } orders(first: 2) { nodes { id } } } }`;

describe('the plan carries what the Table view draws', () => {
  it('a read: the partition it named and the keys of the items it returned, nothing else of them', async () => {
    const { response, wire } = await stack.measure(SCREEN, undefined, { ...bearer(who.a!), 'x-explain': '1' });
    expect(response.data.me.id).toBe(a.customer.id);
    const plan = response.extensions!.dynamodb;
    expect(plan.requests).toHaveLength(wire.length);
    const [query] = plan.requests;
    expect(query).toMatchObject({ operation: 'Query', index: null, partition: customerKeys.pk(a.customer.id) });
    expect(query.keys).toHaveLength(query.items);
    expect(new Set(query.keys.map((key: any) => key.PK))).toEqual(new Set([customerKeys.pk(a.customer.id)]));
    expect(new Set(query.keys.map((key: any) => key.entity))).toEqual(new Set(['Customer profile', 'Address', 'Order summary']));
    for (const key of query.keys)
      expect(Object.keys(key).every((name) => ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'type', 'entity'].includes(name))).toBe(true);
    // Existing fields are unchanged.
    expect(query).toMatchObject({
      keyCondition: expect.stringContaining('PK = '),
      scanned: query.items,
      wave: 1,
      consumedCapacity: expect.any(Number),
    });
  });

  it('a mutation: the items of its transaction, each with its action', async () => {
    const address = { label: `t-${newId().slice(-6)}`, street: 'Calle Mayor 1', city: 'Madrid', postalCode: '28013', country: 'ES' };
    const response = await stack.gql(
      `mutation($id: ID!, $input: AddressInput!) { putAddress(customerId: $id, input: $input) { label } }`,
      { id: a.customer.id, input: address },
      { ...bearer(who.a!), 'x-explain': '1' },
    );
    expect(response.data.putAddress.label).toBe(address.label);
    const writes = response.extensions!.dynamodb.requests.filter((request: any) => request.operation === 'TransactWriteItems');
    expect(writes).toHaveLength(1);
    expect(writes[0].keys).toHaveLength(writes[0].items);
    expect(writes[0].keys).toContainEqual(
      expect.objectContaining({
        PK: customerKeys.pk(a.customer.id),
        SK: `PROFILE#ADDRESS#${address.label}`,
        action: 'Put',
        entity: 'Address',
      }),
    );
    expect(writes[0].keys.every((key: any) => ['Put', 'Update', 'Delete', 'ConditionCheck'].includes(key.action))).toBe(true);
  });
});

describe('GET /dev/partition (development only)', () => {
  const own = () => customerKeys.pk(a.customer.id);
  const other = () => customerKeys.pk(b.customer.id);
  const missing = () => customerKeys.pk(newId());
  /** The answer for a partition nobody has: what every refusal must look like. */
  const empty = (pk: string, index = 'table') => ({
    status: 200,
    type: 'application/json; charset=utf-8',
    body: { pk, index, rows: [], moreBefore: false, moreAfter: false },
  });

  it('staff read any partition, the table and GSI1', async () => {
    const rows = (await partition(stack, who.staff, { pk: other() })).body.rows;
    expect(rows.map((row: any) => row.SK).sort()).toEqual(
      customerItems(b)
        .filter((item) => item.PK === other())
        .map((item) => item.SK)
        .sort(),
    );
    expect(rows.find((row: any) => row.SK === 'PROFILE')).toMatchObject({
      type: 'CUSTOMER',
      entity: 'Customer profile',
      attributes: expect.any(Object),
    });
    const byEmail = await partition(stack, who.staff, { pk: customerKeys.gsi1pk(b.customer.email), index: 'GSI1' });
    expect(byEmail.body.rows).toEqual([expect.objectContaining({ PK: other(), SK: 'PROFILE' })]);
  });

  it('a customer reads its own partition, its orders and the catalog; anything else answers as empty', async () => {
    expect((await partition(stack, who.a, { pk: own() })).body.rows.length).toBeGreaterThan(1);
    expect((await partition(stack, who.a, { pk: CATALOG_PK })).body.rows.map((row: any) => row.SK)).toEqual([
      'PRODUCT#BOOK-001',
      'PRODUCT#MUG-002',
    ]);
    const order = `ORDER#${a.orders[1]!.id}`;
    expect((await partition(stack, who.a, { pk: order })).body.rows.map((row: any) => row.entity)).toContain('Order header');
    // An order whose window does not reach its header (60 lines first) is still its customer's.
    const long = await partition(stack, who.a, { pk: `ORDER#${a.orders[0]!.id}` });
    expect(long.body.rows.length).toBeGreaterThan(0);
    expect(long.body.rows.map((row: any) => row.entity)).not.toContain('Order header');

    expect(await partition(stack, who.a, { pk: other() })).toEqual(empty(other()));
    const nobody = missing();
    expect(await partition(stack, who.a, { pk: nobody })).toEqual(empty(nobody));
    const foreignOrder = `ORDER#${b.orders[0]!.id}`;
    stack.engine.wire.reset();
    expect(await partition(stack, who.a, { pk: foreignOrder })).toEqual(empty(foreignOrder));
    expect(stack.engine.wire.requests().map((request) => request.operation)).toEqual(['GetItem']); // its header's owner, nothing else
    const email = customerKeys.gsi1pk(a.customer.email);
    expect(await partition(stack, who.a, { pk: email, index: 'GSI1' })).toEqual(empty(email, 'GSI1'));
  });

  it('anonymous callers read the catalog only', async () => {
    expect((await partition(stack, undefined, { pk: CATALOG_PK })).body.rows).toHaveLength(2);
    expect(await partition(stack, undefined, { pk: own() })).toEqual(empty(own()));
  });

  it('a refusal costs no read when the key decides it, and a token that does not verify is 401', async () => {
    stack.engine.wire.reset();
    await partition(stack, who.a, { pk: other() });
    expect(stack.engine.wire.count()).toBe(0);
    const forged = `${who.a!.slice(0, who.a!.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
    expect((await partition(stack, forged, { pk: own() })).status).toBe(401);
    expect((await partition(stack, who.staff, { pk: '' })).status).toBe(400);
    expect((await partition(stack, who.staff, { pk: own(), index: 'LSI' })).status).toBe(400);
    expect((await partition(stack, who.staff, { pk: own(), from: 'ORDER#' })).status).toBe(400);
  });

  it(`reads at most ${PARTITION_WINDOW_ROWS} rows around the range, in 3 Queries`, async () => {
    const pk = customerKeys.pk(big.customer.id);
    stack.engine.wire.reset();
    const window = (await partition(stack, who.staff, { pk, from: 'ORDER#', to: 'PROFILE' })).body;
    const wire = stack.engine.wire.requests();
    expect(wire.map((request) => request.operation)).toEqual(['Query', 'Query', 'Query']);
    expect(wire.reduce((sum, request) => sum + request.body.Limit, 0)).toBeLessThanOrEqual(PARTITION_WINDOW_ROWS);
    expect(window.rows.length).toBeLessThanOrEqual(PARTITION_WINDOW_ROWS);
    expect(window.moreAfter).toBe(true);
    // Rows come in sort-key order, contiguous: the range's first 40 (no rows before ORDER#).
    const sks = window.rows.map((row: any) => row.SK);
    expect(sks).toEqual([...sks].sort());
    expect(window.moreBefore).toBe(false);
  });
});

describe('the explorer page', () => {
  const origin = (on: Stack) => new URL(on.server.url).origin;

  it('development: GET /graphql from a browser is the page, under a same-origin CSP; its bundle is served', async () => {
    const page = await fetch(stack.server.url, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('src="/explorer/explorer.js"');
    expect(html).not.toMatch(/https?:\/\/(?!studio)/); // nothing from a CDN
    const script = await fetch(`${origin(stack)}/explorer/explorer.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    expect((await fetch(`${origin(stack)}/explorer/other.js`)).status).toBe(404);
  });

  it('development: the page has an icon, and /favicon.ico (which browsers ask for anyway) is that icon, not a 404', async () => {
    const html = await (await fetch(stack.server.url, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/explorer/favicon.svg" />');
    for (const path of ['/explorer/favicon.svg', '/favicon.ico']) {
      const icon = await fetch(`${origin(stack)}${path}`);
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^]*<\/svg>\n$/);
    }
  });

  it('production: no page, no bundle, no icon, no /dev/partition (404)', async () => {
    const page = await fetch(production.server.url, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toMatch(/^text\/html/);
    expect((await fetch(`${origin(production)}/explorer/explorer.js`)).status).toBe(404);
    expect((await fetch(`${origin(production)}/favicon.ico`)).status).toBe(404);
    const staff = await tokens.staff();
    expect((await partition(production, staff, { pk: CATALOG_PK })).status).toBe(404);
  });
});
