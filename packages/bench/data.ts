/**
 * The benchmark's data set, built once (seeded) and loaded into both designs:
 *
 * - the single table, as items made by the product's own codecs (`customerToItem`,
 *   `addressToItem`, `summaryToItem`, `headerToItem`, `indexedLineToItem`, `emailGuardItem`), the way
 *   test/support does it;
 * - the four tables of the multi-table baseline, as plain rows.
 *
 * Both are written with BatchWriteItem (`Table.putAll`: 25 items a call, a few streams,
 * UnprocessedItems retried), straight to the engine (not through the latency proxy); the single
 * table's items pass the product's write guards.
 *
 * Shape: `customers` ordinary customers (1–4 addresses, 5–40 orders of 1–4 lines, placed over the
 * last two months), plus "growth" customers with 100, 1,000 and 10,000 orders placed earlier
 * (so the status pages show ordinary customers' orders). Every `placedAt` is unique, so both
 * designs order ties identically. The growth customers' orders are written as the customer screen
 * reads them (the single table's order summaries; the baseline's `orders` rows), without order
 * headers and lines, to keep loading short: no scenario reads their detail.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  addressToItem,
  emailGuardItem,
  headerToItem,
  indexedLineToItem,
  newId,
  customerToItem,
  shardOf,
  summaryToItem,
  type AddressRecord,
  type CustomerRecord,
  type OrderLineRecord,
  type OrderRecord,
  type OrderStatus,
  Table,
  type Item,
  guarded,
} from 'single-table-graphql';
import { intBetween, pick, seededRandom } from './rng';
import { TABLES } from './multi-table/tables';

export const STATUSES: OrderStatus[] = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'];
const SKUS = ['BOOK-001', 'MUG-002', 'TEE-003', 'PEN-004', 'LAMP-005', 'CAP-006', 'BAG-007'];
const CITIES: Array<[string, string]> = [
  ['Madrid', 'ES'],
  ['Lisboa', 'PT'],
  ['Lyon', 'FR'],
  ['Berlin', 'DE'],
  ['Milano', 'IT'],
];

export interface OrderData extends OrderRecord {
  lines: OrderLineRecord[];
}

export interface CustomerData {
  customer: CustomerRecord;
  addresses: AddressRecord[];
  /** Newest first. */
  orders: OrderData[];
  /** Whether order headers and lines are written (ordinary customers) or only summaries. */
  detail: boolean;
}

export interface DataSet {
  customers: CustomerData[];
  /** Ordinary customers (the customer screen cycles through them). */
  ordinary: CustomerData[];
  /** Growth customers by order count: 100, 1000, 10000. */
  growth: Map<number, CustomerData>;
  /** Orders with detail (header + lines) written, for the order-detail scenario. */
  detailedOrders: OrderData[];
}

export const GROWTH_SIZES = [100, 1_000, 10_000] as const;

export function buildDataSet(options: { customers: number; seed: number | string }): DataSet {
  const random = seededRandom(`data:${options.seed}`);
  const usedTimes = new Set<number>();
  const uniqueTime = (from: number, to: number) => {
    for (;;) {
      const t = from + Math.floor(random() * (to - from));
      if (!usedTimes.has(t)) {
        usedTimes.add(t);
        return t;
      }
    }
  };
  let serial = 0;
  const makeCustomer = (orderCount: number, window: [number, number], detail: boolean): CustomerData => {
    const n = ++serial;
    const id = newId();
    const customer: CustomerRecord = {
      id,
      name: `Customer ${n}`,
      email: `customer-${n}@example.com`,
      createdAt: new Date(Date.parse('2024-01-01T00:00:00.000Z') + n * 3_600_000).toISOString(),
    };
    const addresses: AddressRecord[] = Array.from({ length: intBetween(random, 1, 4) }, (_, i) => {
      const [city, country] = pick(random, CITIES);
      return {
        label: `addr-${String(i).padStart(2, '0')}`,
        street: `Calle ${n}-${i}`,
        city,
        postalCode: String(10000 + intBetween(random, 0, 89999)),
        country,
      };
    });
    const times = Array.from({ length: orderCount }, () => uniqueTime(window[0], window[1])).sort((a, b) => b - a);
    const orders = times.map((time): OrderData => {
      const lines = Array.from({ length: intBetween(random, 1, 4) }, (_, k): OrderLineRecord => ({
        lineNo: k + 1,
        sku: pick(random, SKUS),
        quantity: intBetween(random, 1, 5),
        unitPriceCents: 199 + 50 * intBetween(random, 0, 60),
      }));
      return {
        id: newId(),
        customerId: id,
        placedAt: new Date(time).toISOString(),
        status: pick(random, STATUSES),
        totalCents: lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0),
        lineCount: lines.length,
        lines,
      };
    });
    return { customer, addresses, orders, detail };
  };

  const recent: [number, number] = [Date.parse('2026-08-01T00:00:00.000Z'), Date.parse('2026-09-30T00:00:00.000Z')];
  const earlier: [number, number] = [Date.parse('2024-01-01T00:00:00.000Z'), Date.parse('2026-07-01T00:00:00.000Z')];
  const ordinary = Array.from({ length: options.customers }, () => makeCustomer(intBetween(random, 5, 40), recent, true));
  const growth = new Map<number, CustomerData>(GROWTH_SIZES.map((size) => [size, makeCustomer(size, earlier, false)]));
  const detailedOrders = ordinary.flatMap((c) => c.orders);
  return { customers: [...ordinary, ...growth.values()], ordinary, growth, detailedOrders };
}

/** What each design stores: a list of (table, item) to write; `guarded` items pass the write guards. */
export interface Write {
  table: string;
  item: Item;
  guarded?: true;
}

/** The single table's items; the summaries' status keys on `shards` shards (the servers' `STATUS_SHARDS`). */
export function singleTableWrites(data: DataSet, tableName: string, shards: number): Write[] {
  const out: Write[] = [];
  const write = (item: Item): Write => ({ table: tableName, item, guarded: true });
  for (const { customer, addresses, orders, detail } of data.customers) {
    const profile = customerToItem(customer);
    if (addresses.length > 0) profile.addressLabels = new Set(addresses.map((a) => a.label));
    out.push(write(profile), write(emailGuardItem(customer.email, customer.id)));
    for (const address of addresses) out.push(write(addressToItem(customer.id, address)));
    for (const order of orders) {
      const { lines: _lines, ...record } = order;
      out.push(write(summaryToItem(record, shards)));
      if (detail) {
        out.push(write(headerToItem(record)));
        for (const line of order.lines) out.push(write(indexedLineToItem(record, line)));
      }
    }
  }
  return out;
}

/**
 * The items `ordersByStatus` with names reads, for a single table of its own written under another
 * shard count (`shards`, the caller's): profiles and order summaries of the ordinary customers
 * (the growth customers' orders are older than any status page the benchmark reads).
 */
export function statusWrites(data: DataSet, tableName: string, shards: number): Write[] {
  return singleTableWrites({ ...data, customers: data.ordinary }, tableName, shards).filter(
    ({ item }) => item.SK === 'PROFILE' || String(item.GSI1PK ?? '').startsWith('STATUS#'),
  );
}

/** The four tables' items; `statusShard` hashed on `shards` shards, as the product's. */
export function multiTableWrites(data: DataSet, shards: number): Write[] {
  const out: Write[] = [];
  for (const { customer, addresses, orders, detail } of data.customers) {
    out.push({ table: TABLES.customers, item: { ...customer, emailLower: customer.email.toLowerCase() } });
    for (const address of addresses) out.push({ table: TABLES.addresses, item: { customerId: customer.id, ...address } });
    for (const order of orders) {
      const { lines: _lines, ...header } = order;
      // The sharded status index's key, hashed as the product's (shardOf at the configured STATUS_SHARDS).
      out.push({ table: TABLES.orders, item: { ...header, statusShard: `${order.status}#${shardOf(order.id, shards)}` } });
      if (detail) for (const line of order.lines) out.push({ table: TABLES.lines, item: { orderId: order.id, ...line } });
    }
  }
  return out;
}

/** BatchWriteItem per table (`Table.putAll`), 25 items a call, `streams` calls in flight, UnprocessedItems retried. */
export async function writeAll(doc: DynamoDBDocumentClient, writes: readonly Write[], streams = 4): Promise<void> {
  const groups = new Map<string, { table: Table; items: Item[] }>();
  for (const { table: name, item, guarded: isGuarded } of writes) {
    const key = `${name}\u0000${isGuarded ? 'guarded' : ''}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { table: isGuarded ? guarded(new Table(name, doc)) : new Table(name, doc), items: [] }));
    group.items.push(item);
  }
  for (const { table, items } of groups.values()) await table.putAll(items, { concurrency: streams });
}

/** The GraphQL data a client should read for the customer screen (to check every design). */
export function expectedCustomerScreen(data: CustomerData, ordersShown: number) {
  const { customer, addresses, orders } = data;
  return {
    customer: {
      id: customer.id,
      name: customer.name,
      email: customer.email,
      createdAt: customer.createdAt,
      addresses: [...addresses].sort((a, b) => a.label.localeCompare(b.label)).map((a) => ({ ...a })),
      orders: {
        nodes: orders.slice(0, ordersShown).map((o) => ({ id: o.id, placedAt: o.placedAt, status: o.status, totalCents: o.totalCents })),
      },
    },
  };
}
