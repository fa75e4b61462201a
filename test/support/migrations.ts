/**
 * Shared setup of the migration suites (test/migrations/): a fresh stack per test, so counts are
 * exact; order data as the code before ordersBySku stored it (lines without GSI1 keys), which
 * migration 0001 backfills; the ordersBySku query and its expected answer; placing orders through
 * GraphQL; and a virtual clock for the rate limiter.
 */
import { afterEach, expect } from 'vitest';
import type { Item } from '../../src/dynamo/table';
import type { Clock } from '../../src/ops/migrations';
import { newId, type OrderLineRecord } from '../../src/model';
import { buildCustomer, customerItems, loadProducts, newestFirst, type CustomerFixture, type OrderFixture } from './fixtures';
import { dataOf } from './graphql';
import { startStack, type Stack } from './stack';

/** Registers an afterEach that closes every stack started in the test; returns the starter. */
export function useFreshStacks(): () => Promise<Stack> {
  const stacks: Stack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((stack) => stack.close()));
  });
  return async function freshStack(): Promise<Stack> {
    const stack = await startStack();
    stacks.push(stack);
    return stack;
  };
}

// ---- data as the old code stored it --------------------------------------------------------------

export const isLine = (item: Item) => String(item.PK).startsWith('ORDER#') && String(item.SK).startsWith('LINE#');
export const isData = (item: Item) => !String(item.PK).startsWith('MIGRATION#');
export const keyOf = (item: Item) => `${String(item.PK)}|${String(item.SK)}`;
export const sortItems = (items: readonly Item[]) => [...items].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));

/** A customer's items as the code before ordersBySku stored them: lines without GSI1 keys. */
function legacyItems(fixture: CustomerFixture): Item[] {
  return customerItems(fixture).map((item) => {
    if (!isLine(item)) return item;
    const { GSI1PK: _pk, GSI1SK: _sk, ...old } = item;
    return old;
  });
}

/** Loads `customers` customers of `orders` orders each, stored the old way; returns the fixtures. */
export async function loadLegacy(stack: Stack, customers: number, orders: number): Promise<CustomerFixture[]> {
  const fixtures = Array.from({ length: customers }, (_, i) =>
    buildCustomer({ orders, newest: `2026-0${1 + (i % 9)}-20T12:00:00.000Z`, spacingMinutes: 17 * 60 + i }),
  );
  const items = fixtures.flatMap(legacyItems);
  expect(items.filter(isLine).every((line) => line.GSI1PK === undefined && line.GSI1SK === undefined)).toBe(true);
  await stack.load(items);
  return fixtures;
}

export const linesOf = (fixtures: readonly CustomerFixture[]) =>
  fixtures.flatMap((f) => f.orders.flatMap((o) => o.lines.map((line) => ({ order: o, line }))));

export const BY_SKU = `query($sku: String!, $first: Int, $after: String) {
  ordersBySku(sku: $sku, first: $first, after: $after) {
    nodes { id placedAt status totalCents customer { name } lines { lineNo sku quantity unitPriceCents } }
    pageInfo { hasNextPage }
  }
}`;

export function bySkuData(fixtures: readonly CustomerFixture[], sku: string, hasNextPage = false) {
  const names = new Map(fixtures.map((f) => [f.customer.id, f.customer.name]));
  const orders = newestFirst(fixtures.flatMap((f) => f.orders).filter((order) => order.lines.some((line) => line.sku === sku)));
  return {
    ordersBySku: {
      nodes: orders.map((order: OrderFixture) => ({
        id: order.id,
        placedAt: order.placedAt,
        status: order.status,
        totalCents: order.totalCents,
        customer: { name: names.get(order.customerId) },
        lines: order.lines.map((line) => ({ ...line })),
      })),
      pageInfo: { hasNextPage },
    },
  };
}

const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id placedAt status totalCents } }`;
const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name } }`;

export async function createCustomer(stack: Stack, name = 'Ana') {
  return dataOf(await stack.gql(CREATE, { input: { name, email: `${name.toLowerCase()}.${newId().toLowerCase()}@example.com` } }))
    .createCustomer as { id: string; name: string };
}

/** A SKU's catalog price in these tests. */
const priceOf = (sku: string) => 100 + [...sku].reduce((sum, c) => sum + c.charCodeAt(0), 0);
const stocked = new WeakMap<Stack, Set<string>>();

/** Puts the SKUs not yet in this stack's catalog there (placeOrder prices from it). */
export async function stock(stack: Stack, skus: readonly string[]) {
  const known = stocked.get(stack) ?? new Set<string>();
  stocked.set(stack, known);
  const fresh = [...new Set(skus)].filter((sku) => !known.has(sku));
  if (fresh.length > 0)
    await loadProducts(
      stack,
      fresh.map((sku) => ({ sku, priceCents: priceOf(sku) })),
    );
  for (const sku of fresh) known.add(sku);
}

export async function placeOrder(stack: Stack, customerId: string, placedAt: string, skus: string[]) {
  await stock(stack, skus);
  const lines = skus.map((sku, i) => ({ sku, quantity: 1 + i }));
  const order = dataOf(await stack.gql(PLACE, { input: { customerId, idempotencyKey: `k-${newId()}`, placedAt, lines } })).placeOrder;
  return { ...order, lines: lines.map((line, i): OrderLineRecord => ({ lineNo: i + 1, ...line, unitPriceCents: priceOf(line.sku) })) } as {
    id: string;
    placedAt: string;
    status: string;
    totalCents: number;
    lines: OrderLineRecord[];
  };
}

export const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];

/** A clock whose sleeps return at once and move its time forward by what they waited. */
export function virtualClock(): Clock {
  let time = 0;
  return {
    now: () => time,
    async sleep(ms) {
      time += ms;
    },
  };
}
