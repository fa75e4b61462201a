/**
 * Fixtures for the read-path suites: customers, addresses and orders built with the model's own
 * codecs and written with `stack.load` (BatchWriteItem through the write guards), so a
 * 10,000-order customer loads in seconds. Every fixture also returns the GraphQL data a client should read back, so tests compare
 * whole `data` objects against what was loaded, never against what the server happened to return.
 *
 * Ids are ULIDs (`newId()`); `placedAt` is the fixed-width `YYYY-MM-DDTHH:mm:ss.sssZ` the sort
 * keys rely on. A `World` remembers every order loaded into one stack, so suites that read the
 * shared status index (`ordersByStatus`) can compute the expected answer over the whole table.
 */
import { expect } from 'vitest';
import {
  DEFAULT_WRITE_SHARDS,
  addressToItem,
  emailGuardItem,
  headerToItem,
  indexedLineToItem,
  newId,
  orderKeys,
  productToItem,
  customerToItem,
  summaryToItem,
  type AddressRecord,
  type CustomerRecord,
  type OrderLineRecord,
  type OrderRecord,
  type OrderStatus,
} from '../../src/model';
import type { Item } from '../../src/dynamo/table';
import type { GraphQLResponse, Stack } from './stack';
import type { WireRequest } from '@single-table/engine';

// ---- building ----------------------------------------------------------------------------------

export interface OrderFixture extends OrderRecord {
  lines: OrderLineRecord[];
}

export interface CustomerFixture {
  customer: CustomerRecord;
  /** As the API lists them: by label. */
  addresses: AddressRecord[];
  /** As the API lists them: newest first. */
  orders: OrderFixture[];
}

export interface CustomerSpec {
  name?: string;
  /** How many addresses (0..10), labelled `addr-00`, `addr-01`, ... */
  addresses?: number;
  /** How many orders, one `spacingMinutes` apart going back from `newest`. */
  orders?: number;
  newest?: string;
  spacingMinutes?: number;
  /** Explicit placedAt values (instead of `orders`/`newest`/`spacingMinutes`). */
  placedAt?: readonly string[];
  /** Status of the n-th order created (0 = the first of `placedAt`, or the newest). */
  status?: (n: number) => OrderStatus;
  /** Lines per order (1..3 by default, varying). */
  lines?: (n: number) => number;
  /** Whether to write order headers and lines (the order's own collection). Default true. */
  detail?: boolean;
}

const STATUS_CYCLE: OrderStatus[] = ['DELIVERED', 'SHIPPED', 'PENDING', 'CANCELLED'];
const SKUS = ['BOOK-001', 'MUG-002', 'TEE-003', 'PEN-004', 'LAMP-005'];
let serial = 0;

/** A timestamp `minutes` before `from`, in the fixed-width ISO form. */
export function minutesBefore(from: string, minutes: number): string {
  return new Date(Date.parse(from) - minutes * 60_000).toISOString();
}

export function buildCustomer(spec: CustomerSpec = {}): CustomerFixture {
  const id = newId();
  const n = ++serial;
  const customer: CustomerRecord = {
    id,
    name: spec.name ?? `Customer ${n}`,
    email: `customer-${n}-${id.slice(-6).toLowerCase()}@example.com`,
    createdAt: '2024-01-15T09:30:00.000Z',
  };
  const addresses: AddressRecord[] = Array.from({ length: spec.addresses ?? 2 }, (_, i) => ({
    label: `addr-${String(i).padStart(2, '0')}`,
    street: `Calle ${n}-${i}`,
    city: ['Madrid', 'Lisboa', 'Lyon', 'Berlin'][i % 4] as string,
    postalCode: `${28000 + i}`,
    country: ['ES', 'PT', 'FR', 'DE'][i % 4] as string,
  }));
  const newest = spec.newest ?? '2026-09-30T12:00:00.000Z';
  const spacing = spec.spacingMinutes ?? 60;
  const placedAt = spec.placedAt ?? Array.from({ length: spec.orders ?? 0 }, (_, i) => minutesBefore(newest, i * spacing));
  const orders = placedAt.map((at, i): OrderFixture => {
    const lineCount = spec.lines?.(i) ?? 1 + (i % 3);
    const lines = Array.from({ length: lineCount }, (_, k): OrderLineRecord => ({
      lineNo: k + 1,
      sku: SKUS[(i + k) % SKUS.length] as string,
      quantity: 1 + ((i + k) % 4),
      unitPriceCents: 499 + 250 * ((i * 7 + k) % 9),
    }));
    return {
      id: newId(),
      customerId: id,
      placedAt: at,
      status: spec.status?.(i) ?? (STATUS_CYCLE[i % STATUS_CYCLE.length] as OrderStatus),
      totalCents: lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0),
      lineCount,
      lines,
    };
  });
  return { customer, addresses: sortAddresses(addresses), orders: newestFirst(orders) };
}

export function sortAddresses(addresses: readonly AddressRecord[]): AddressRecord[] {
  return [...addresses].sort((a, b) => a.label.localeCompare(b.label));
}

/** Newest first, in the order of the sort key the customer's collection and the status index use. */
export function newestFirst<T extends { placedAt: string; id: string }>(orders: readonly T[]): T[] {
  const key = (order: T) => orderKeys.summarySk(order.placedAt, order.id);
  return [...orders].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

/** The raw items of a customer fixture, as the write path would have stored them. */
export function customerItems(fixture: CustomerFixture, options: { detail?: boolean } = {}): Item[] {
  const { customer, addresses, orders } = fixture;
  const profile = customerToItem(customer);
  if (addresses.length > 0) profile.addressLabels = new Set(addresses.map((a) => a.label));
  const items: Item[] = [profile, emailGuardItem(customer.email, customer.id), ...addresses.map((a) => addressToItem(customer.id, a))];
  for (const order of orders) {
    items.push(summaryToItem(order, DEFAULT_WRITE_SHARDS));
    if (options.detail !== false) {
      items.push(headerToItem(order), ...order.lines.map((line) => indexedLineToItem(order, line)));
    }
  }
  return items;
}

// ---- loading -----------------------------------------------------------------------------------

/** Every order loaded into one stack, for expectations over the shared status index. */
export class World {
  readonly orders: OrderFixture[] = [];
  readonly customers = new Map<string, CustomerFixture>();

  constructor(private readonly stack: Stack) {}

  /** Builds a customer and loads it (`parallel` BatchWriteItem streams). */
  async customer(spec: CustomerSpec = {}): Promise<CustomerFixture> {
    const fixture = buildCustomer(spec);
    await loadItems(this.stack, customerItems(fixture, { detail: spec.detail ?? true }));
    this.customers.set(fixture.customer.id, fixture);
    this.orders.push(...fixture.orders);
    return fixture;
  }

  /** All loaded orders in `status`, newest first: what `ordersByStatus` pages through. */
  ordersIn(status: OrderStatus): OrderFixture[] {
    return newestFirst(this.orders.filter((order) => order.status === status));
  }

  customerOf(order: OrderRecord): CustomerRecord {
    const fixture = this.customers.get(order.customerId);
    if (!fixture) throw new Error(`no fixture customer ${order.customerId}`);
    return fixture.customer;
  }
}

/**
 * Puts products straight into the catalog (active unless said otherwise), so placeOrder can price
 * orders of their SKUs. Tests of putProduct itself use the mutation.
 */
export async function loadProducts(
  stack: Stack,
  products: ReadonlyArray<{ sku: string; priceCents: number; name?: string; active?: boolean }>,
): Promise<void> {
  await loadItems(
    stack,
    products.map((p) =>
      productToItem({ sku: p.sku, name: p.name ?? `Product ${p.sku}`, priceCents: p.priceCents, active: p.active ?? true }),
    ),
  );
}

/** `stack.load` in a few parallel streams: 10,000 items in a handful of seconds. */
export async function loadItems(stack: Stack, items: Item[], streams = 4): Promise<void> {
  await stack.load(items, { streams });
}

// ---- expected GraphQL data ---------------------------------------------------------------------

export const ADDRESS_FIELDS = 'label street city postalCode country';
export const ORDER_FIELDS = 'id placedAt status totalCents';
export const LINE_FIELDS = 'lineNo sku quantity unitPriceCents';

export function profileData(customer: CustomerRecord) {
  return { id: customer.id, name: customer.name, email: customer.email, createdAt: customer.createdAt };
}

export function orderData(order: OrderRecord) {
  return { id: order.id, placedAt: order.placedAt, status: order.status, totalCents: order.totalCents };
}

export function linesData(order: OrderFixture) {
  return order.lines.map((line) => ({ ...line }));
}

// ---- measuring ---------------------------------------------------------------------------------

export interface Measured<T = any> {
  response: GraphQLResponse<T>;
  wire: WireRequest[];
}

export interface Budget {
  requests: number;
  waves: number;
  /** The operations, in any order (requests of one wave may be answered in any order). */
  operations?: string[];
}

export interface Cost {
  requests: number;
  waves: number;
  items: number;
  operations: string[];
}

/** What an operation cost on the wire, and the explain extension's account of it. */
export function costOf(measured: Measured): Cost {
  const explain = measured.response.extensions?.dynamodb;
  return {
    requests: measured.wire.length,
    waves: explain?.waves ?? 0,
    items: explain?.totals?.items ?? 0,
    operations: measured.wire.map((request) => request.operation),
  };
}

/**
 * Asserts that the operation succeeded, that the explain extension agrees with the wire (same
 * number of requests, same operations), and that it stayed within `budget`.
 */
export function expectBudget(measured: Measured, budget: Budget): void {
  const { response, wire } = measured;
  expect(response.errors).toBeUndefined();
  expectExplainAgrees(measured);
  expect(wire.length, 'DynamoDB requests on the wire').toBe(budget.requests);
  expect(response.extensions?.dynamodb?.waves, 'waves').toBe(budget.waves);
  if (budget.operations) expect(sorted(wire.map((r) => r.operation))).toEqual(sorted(budget.operations));
}

/** The explain extension (`extensions.dynamodb`) tells exactly what reached the engine. */
export function expectExplainAgrees({ response, wire }: Measured): void {
  const explain = response.extensions?.dynamodb;
  expect(explain, 'extensions.dynamodb').toBeDefined();
  expect(explain.totals.requests).toBe(wire.length);
  expect(explain.requests).toHaveLength(wire.length);
  expect(sorted(explain.requests.map((r: { operation: string }) => r.operation))).toEqual(sorted(wire.map((r) => r.operation)));
  expect(explain.totals.items).toBe(explain.requests.reduce((n: number, r: { items: number }) => n + r.items, 0));
}

/** Asserts a BAD_USER_INPUT refusal that sent nothing to DynamoDB. */
export function expectBadInput(measured: Measured): void {
  const { response, wire } = measured;
  expect(response.errors?.[0]?.extensions?.code, JSON.stringify(response.errors)).toBe('BAD_USER_INPUT');
  expect(wire, 'DynamoDB requests on the wire').toHaveLength(0);
}

function sorted(list: readonly string[]): string[] {
  return [...list].sort();
}
