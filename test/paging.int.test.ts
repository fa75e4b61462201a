/**
 * Paging: a customer's orders (all, or one month) and the orders of a status, newest first, with
 * opaque cursors. Every page is compared whole with the fixture; paging visits every order exactly
 * once. Bad input (forged or foreign cursors, bad months, page sizes, ids) is BAD_USER_INPUT and
 * sends nothing to DynamoDB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import {
  costOf,
  expectBadInput,
  expectBudget,
  expectExplainAgrees,
  ORDER_FIELDS,
  orderData,
  World,
  type CustomerFixture,
  type OrderFixture,
} from './support/fixtures';
import { newId, shardOf, DEFAULT_WRITE_SHARDS } from '../src/model';

let stack: Stack;
let world: World;

let empty: CustomerFixture; // no orders
let ten: CustomerFixture; // 10 orders
let many: CustomerFixture; // 57 orders over several months
let other: CustomerFixture; // another customer, for foreign cursors

beforeAll(async () => {
  stack = await startStack();
  world = new World(stack);
  empty = await world.customer({ name: 'Empty', addresses: 1, orders: 0 });
  ten = await world.customer({ name: 'Ten', addresses: 3, orders: 10, status: () => 'SHIPPED' });
  // 57 orders, one every 2 days back from mid-October: they span Jun..Oct 2026, about 15 a month.
  // Statuses: every third order PAID, so the status index holds orders of several customers.
  many = await world.customer({
    name: 'Many',
    addresses: 2,
    orders: 57,
    newest: '2026-10-15T18:45:12.345Z',
    spacingMinutes: 2 * 24 * 60,
    status: (n) => (n % 3 === 0 ? 'PAID' : 'DELIVERED'),
  });
  other = await world.customer({
    name: 'Other',
    addresses: 1,
    orders: 12,
    newest: '2026-10-14T00:00:00.000Z',
    spacingMinutes: 5 * 24 * 60,
    status: (n) => (n % 2 === 0 ? 'PAID' : 'PENDING'),
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const ORDERS = /* GraphQL */ `
  query Orders($id: ID!, $first: Int, $after: String, $month: String) {
    customer(id: $id) {
      orders(first: $first, after: $after, month: $month) {
        nodes { ${ORDER_FIELDS} }
        edges { cursor node { id } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }`;

const BY_STATUS = /* GraphQL */ `
  query ByStatus($status: OrderStatus!, $first: Int, $after: String) {
    ordersByStatus(status: $status, first: $first, after: $after) {
      nodes { ${ORDER_FIELDS} }
      edges { cursor node { id } }
      pageInfo { hasNextPage endCursor }
    }
  }`;

interface Page {
  nodes: Array<ReturnType<typeof orderData>>;
  edges: Array<{ cursor: string; node: { id: string } }>;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

async function ordersPage(customer: CustomerFixture, vars: { first?: number; after?: string | null; month?: string }) {
  const measured = await stack.measure<{ customer: { orders: Page } }>(ORDERS, { id: customer.customer.id, ...vars });
  expect(measured.response.errors).toBeUndefined();
  return { measured, page: measured.response.data!.customer.orders };
}

async function statusPage(status: string, vars: { first?: number; after?: string | null }) {
  const measured = await stack.measure<{ ordersByStatus: Page }>(BY_STATUS, { status, ...vars });
  expect(measured.response.errors).toBeUndefined();
  return { measured, page: measured.response.data!.ordersByStatus };
}

/** Asserts the connection invariants: one edge per node, same order, endCursor is the last edge's. */
function expectConsistent(page: Page): void {
  expect(page.edges.map((edge) => edge.node.id)).toEqual(page.nodes.map((node) => node.id));
  expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
  expect(new Set(page.edges.map((edge) => edge.cursor)).size).toBe(page.edges.length);
}

/** Pages through a list with `first`, returning the pages; fails if it does not end. */
async function pageThrough(
  fetchPage: (after: string | null) => Promise<{ page: Page; measured: Awaited<ReturnType<typeof stack.measure>> }>,
  maxPages: number,
) {
  const pages: Array<{ page: Page; measured: Awaited<ReturnType<typeof stack.measure>> }> = [];
  let after: string | null = null;
  for (;;) {
    const result = await fetchPage(after);
    expectConsistent(result.page);
    pages.push(result);
    if (!result.page.pageInfo.hasNextPage) return pages;
    expect(pages.length, 'pages before hasNextPage turned false').toBeLessThan(maxPages);
    after = result.page.pageInfo.endCursor;
    expect(after).not.toBeNull();
  }
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

describe("a customer's orders, page by page", () => {
  it('answers a customer without orders with an empty page', async () => {
    const { measured, page } = await ordersPage(empty, { first: 10 });
    expectBudget(measured, { requests: 1, waves: 1 });
    expect(page).toEqual({ nodes: [], edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('ends exactly on a multiple of first: 10 orders by 5 are two pages, the second without a next', async () => {
    const one = await ordersPage(ten, { first: 5 });
    expect(one.page.nodes).toEqual(ten.orders.slice(0, 5).map(orderData));
    expect(one.page.pageInfo.hasNextPage).toBe(true);
    expectConsistent(one.page);

    const two = await ordersPage(ten, { first: 5, after: one.page.pageInfo.endCursor });
    expectBudget(two.measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(two.page.nodes).toEqual(ten.orders.slice(5, 10).map(orderData));
    expect(two.page.pageInfo).toEqual({ hasNextPage: false, endCursor: two.page.edges[4]?.cursor });
  });

  it('answers the page after the last one with no orders', async () => {
    const all = await ordersPage(ten, { first: 10 });
    expect(all.page.nodes).toEqual(ten.orders.map(orderData));
    expect(all.page.pageInfo.hasNextPage).toBe(false);

    const beyond = await ordersPage(ten, { first: 10, after: all.page.pageInfo.endCursor });
    expect(beyond.page).toEqual({ nodes: [], edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('pages through 57 orders by 10, visiting each exactly once, newest first, one Query a page', async () => {
    const pages = await pageThrough(async (after) => ordersPage(many, { first: 10, after }), 10);
    expect(pages.map(({ page }) => page.nodes.length)).toEqual([10, 10, 10, 10, 10, 7]);
    expect(pages.map(({ page }) => page.nodes)).toEqual(chunks(many.orders.map(orderData), 10));
    const seen = pages.flatMap(({ page }) => page.nodes.map((node) => node.id));
    expect(new Set(seen).size).toBe(57);
    for (const { measured } of pages) expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
  });

  it('reads first + 1 orders for a page after a cursor, however many orders follow', async () => {
    const one = await ordersPage(many, { first: 10 });
    const two = await ordersPage(many, { first: 10, after: one.page.pageInfo.endCursor });
    expect(costOf(two.measured).items).toBe(11);
  });

  it('gives each edge a cursor from which the next orders follow', async () => {
    const { page } = await ordersPage(many, { first: 20 });
    const fromEdge = await ordersPage(many, { first: 4, after: page.edges[6]!.cursor });
    expect(fromEdge.page.nodes).toEqual(many.orders.slice(7, 11).map(orderData));
  });
});

describe("a customer's orders of one month", () => {
  const month = '2026-08';
  const inMonth = () => many.orders.filter((order) => order.placedAt.startsWith(month));

  it('lists that month only, newest first', async () => {
    expect(inMonth().length).toBeGreaterThan(10);
    const { measured, page } = await ordersPage(many, { month, first: 100 });
    expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
    expect(page.nodes).toEqual(inMonth().map(orderData));
    expect(page.pageInfo.hasNextPage).toBe(false);
  });

  it('pages within the month, visiting each of its orders exactly once and never leaving it', async () => {
    const pages = await pageThrough(async (after) => ordersPage(many, { month, first: 4, after }), 10);
    expect(pages.map(({ page }) => page.nodes)).toEqual(chunks(inMonth().map(orderData), 4));
    for (const { measured } of pages) expectBudget(measured, { requests: 1, waves: 1, operations: ['Query'] });
  });

  it('answers a month without orders with an empty page (the profile then proves the customer exists)', async () => {
    const { measured, page } = await ordersPage(many, { month: '2025-02', first: 10 });
    expect(page).toEqual({ nodes: [], edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
    expectExplainAgrees(measured);
    expect(measured.wire.length).toBeLessThanOrEqual(2);
  });

  it('answers a missing customer asked for one month with null', async () => {
    const measured = await stack.measure(ORDERS, { id: newId(), month, first: 10 });
    expect(measured.response.errors).toBeUndefined();
    expect(measured.response.data).toEqual({ customer: null });
  });
});

describe('orders by status, page by page', () => {
  it('pages through every PAID order of every customer exactly once, newest first', async () => {
    const paid = world.ordersIn('PAID');
    expect(new Set(paid.map((order) => order.customerId)).size).toBe(2);
    const pages = await pageThrough(async (after) => statusPage('PAID', { first: 7, after }), 20);
    expect(pages.map(({ page }) => page.nodes)).toEqual(chunks(paid.map(orderData), 7));
    // Wave 1: one Query per shard still holding orders (its share of the page plus a margin). A shard that
    // ran short is read again: for the missing count while fewer than W = first + 1 items are merged, then
    // by range above the page's last item; each later wave reads a shard at most once.
    for (const { measured } of pages) {
      expectExplainAgrees(measured);
      expect(new Set(measured.wire.map((r) => r.operation))).toEqual(new Set(['Query']));
      const perShard = new Map<string, { requests: number; asked: number }>();
      for (const r of measured.wire) {
        const pk = String(r.body.ExpressionAttributeValues[':pk'].S);
        const shard = perShard.get(pk) ?? { requests: 0, asked: 0 };
        perShard.set(pk, { requests: shard.requests + 1, asked: shard.asked + Number(r.body.Limit) });
      }
      expect(perShard.size).toBeLessThanOrEqual(DEFAULT_WRITE_SHARDS);
      const waves = Math.max(...[...perShard.values()].map((shard) => shard.requests));
      expect(measured.response.extensions?.dynamodb.waves).toBe(waves);
      expect(waves).toBeLessThanOrEqual(3);
      // No shard is asked for more than W items in all.
      for (const { asked } of perShard.values()) expect(asked).toBeLessThanOrEqual(8);
    }
    expect(pages[0]!.measured.wire.length).toBeGreaterThanOrEqual(DEFAULT_WRITE_SHARDS);
  });

  it('ends exactly on a multiple of first', async () => {
    const shipped = world.ordersIn('SHIPPED');
    expect(shipped).toHaveLength(10);
    const pages = await pageThrough(async (after) => statusPage('SHIPPED', { first: 5, after }), 5);
    expect(pages.map(({ page }) => page.nodes)).toEqual(chunks(shipped.map(orderData), 5));
  });

  it('answers a status without orders with an empty page', async () => {
    const { measured, page } = await statusPage('CANCELLED', { first: 10 });
    expectBudget(measured, { requests: DEFAULT_WRITE_SHARDS, waves: 1, operations: Array(DEFAULT_WRITE_SHARDS).fill('Query') });
    expect(page).toEqual({ nodes: [], edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });
});

describe('bad paging input is BAD_USER_INPUT and reaches no table', () => {
  const endCursorOf = async (customer: CustomerFixture, vars: { month?: string } = {}) =>
    (await ordersPage(customer, { first: 2, ...vars })).page.pageInfo.endCursor as string;
  const statusCursor = async (status: string) => (await statusPage(status, { first: 2 })).page.pageInfo.endCursor as string;
  const base64url = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64url');
  const summaryKeyOf = (order: OrderFixture) => ({ PK: `CUSTOMER#${order.customerId}`, SK: `ORDER#${order.placedAt}#${order.id}` });

  it.each([
    ['random base64url', () => base64url(newId())],
    ['garbage with characters outside base64url', () => '!!not a cursor!!'],
    ['an empty string', () => ''],
    ['base64url of JSON that is not a cursor', () => base64url({ PK: 'x' })],
    [
      'a cursor of an unknown version',
      async () => base64url([2, ...JSON.parse(Buffer.from(await endCursorOf(many), 'base64url').toString('utf8')).slice(1)]),
    ],
  ])('refuses a forged cursor: %s', async (_name, make) => {
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: await make() }));
  });

  it("refuses a hand-made cursor in this customer's scope that names another collection's key", async () => {
    const otherOrder = other.orders[0]!;
    const forged = base64url([1, `orders:${many.customer.id}:*`, summaryKeyOf(otherOrder)]);
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: forged }));
    const profile = base64url([1, `orders:${many.customer.id}:*`, { PK: `CUSTOMER#${many.customer.id}`, SK: 'PROFILE' }]);
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: profile }));
  });

  it("refuses a cursor taken from another customer's orders", async () => {
    const foreign = await endCursorOf(other);
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: foreign }));
  });

  it('refuses a cursor of one month used on another month, or on the whole list', async () => {
    const august = await endCursorOf(many, { month: '2026-08' });
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, month: '2026-09', after: august }));
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: august }));
    const whole = await endCursorOf(many);
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, month: '2026-10', after: whole }));
  });

  it('refuses a cursor of ordersByStatus(PAID) used with ordersByStatus(SHIPPED)', async () => {
    const paid = await statusCursor('PAID');
    expectBadInput(await stack.measure(BY_STATUS, { status: 'SHIPPED', first: 5, after: paid }));
  });

  /** A hand-made status cursor: `order` as the position of its shard, the other shards at their start. */
  function statusPosition(
    order: { placedAt: string; id: string; customerId: string },
    patch: (key: Record<string, string>) => void = () => {},
    scope = `status:PAID:${DEFAULT_WRITE_SHARDS}`,
  ) {
    const key: Record<string, string> = {};
    for (let shard = 0; shard < DEFAULT_WRITE_SHARDS; shard++) key[`s${shard}`] = '';
    key[`s${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`] = `${order.placedAt}#${order.id}|${order.customerId}`;
    patch(key);
    return base64url([1, scope, key]);
  }

  it('refuses a hand-made status cursor naming another status, shard or a key that is not a position', async () => {
    const order = world.ordersIn('PAID')[0]!;
    const own = shardOf(order.id, DEFAULT_WRITE_SHARDS);
    const other = (own + 1) % DEFAULT_WRITE_SHARDS;
    expect((await stack.measure(BY_STATUS, { status: 'PAID', first: 2, after: statusPosition(order) })).response.errors).toBeUndefined();
    for (const cursor of [
      statusPosition(order, () => {}, `status:SHIPPED:${DEFAULT_WRITE_SHARDS}`),
      statusPosition(order, () => {}, `status:PAID:${DEFAULT_WRITE_SHARDS + 1}`),
      statusPosition(order, (key) => {
        key[`s${other}`] = key[`s${own}`]!;
        key[`s${own}`] = '';
      }),
      statusPosition(order, (key) => {
        key[`s${own}`] = 'not-a-position|' + order.customerId;
      }),
      statusPosition(order, (key) => {
        key[`s${own}`] = `${order.placedAt}#${order.id}`;
      }),
      statusPosition(order, (key) => {
        key.extra = '';
      }),
      statusPosition(order, (key) => {
        delete key[`s${other}`];
      }),
      statusPosition(order, (key) => {
        key[`s${other}`] = 'done';
      }),
    ]) {
      expectBadInput(await stack.measure(BY_STATUS, { status: 'PAID', first: 2, after: cursor }));
    }
  });

  it('refuses a hand-made status cursor whose position names no customer, or one in another case', async () => {
    const order = world.ordersIn('PAID')[0]!;
    const own = shardOf(order.id, DEFAULT_WRITE_SHARDS);
    for (const customerId of ['not-an-id', '', `${order.customerId}#PROFILE`, order.customerId.toLowerCase()]) {
      const cursor = statusPosition(order, (key) => {
        key[`s${own}`] = `${order.placedAt}#${order.id}|${customerId}`;
      });
      expectBadInput(await stack.measure(BY_STATUS, { status: 'PAID', first: 2, after: cursor }));
    }
  });

  it("refuses a status cursor used on a customer's orders, and the other way round", async () => {
    const paid = await statusCursor('PAID');
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, after: paid }));
    const customerCursor = await endCursorOf(many);
    expectBadInput(await stack.measure(BY_STATUS, { status: 'PAID', first: 5, after: customerCursor }));
  });

  it.each(['2026-13', '2026-9', '2026-00', '26-09', '2026-09-01', ''])('refuses the month %j', async (month) => {
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first: 5, month }));
  });

  it.each([0, 101, -1])("refuses first: %i on a customer's orders", async (first) => {
    expectBadInput(await stack.measure(ORDERS, { id: many.customer.id, first }));
  });

  it.each([0, 101, -1])('refuses first: %i on ordersByStatus', async (first) => {
    expectBadInput(await stack.measure(BY_STATUS, { status: 'PAID', first }));
  });

  it('refuses bad window arguments given as literals in the query text', async () => {
    expectBadInput(
      await stack.measure(`query($id: ID!) { customer(id: $id) { name orders(first: 0) { nodes { id } } } }`, { id: many.customer.id }),
    );
    expectBadInput(
      await stack.measure(`query($id: ID!) { customer(id: $id) { orders(month: "2026-9") { nodes { id } } } }`, { id: many.customer.id }),
    );
    expectBadInput(await stack.measure(`{ ordersByStatus(status: PAID, first: 101) { nodes { id } } }`));
  });

  it.each([
    ['an id containing the key separator', () => `${newId().slice(0, 25)}#`],
    ['an id with a key suffix', () => `${newId()}#PROFILE`],
    ['a malformed id', () => 'not-an-id'],
    ['an empty id', () => ''],
    ['an id with characters outside base 32', () => 'ILOU0000000000000000000000'],
  ])('refuses %s for customer and order', async (_name, make) => {
    const id = make();
    expectBadInput(await stack.measure(ORDERS, { id, first: 5 }));
    expectBadInput(await stack.measure(`query($id: ID!) { customer(id: $id) { name } }`, { id }));
    expectBadInput(await stack.measure(`query($id: ID!) { order(id: $id) { id lines { lineNo } } }`, { id }));
  });
});
