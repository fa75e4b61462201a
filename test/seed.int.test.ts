/**
 * `npm run seed`: generated customers and orders written to the embedded engine with
 * BatchWriteItem. The counts are exact, the data is a function of the seed, and what it writes is
 * what the write path would have stored, so the GraphQL server serves it like its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '@single-table/engine';
import { createDocumentClient } from '../src/dynamo/client';
import { ensureTable } from '../src/dynamo/definition';
import { Table, type Item } from '../src/dynamo/table';
import {
  DEFAULT_WRITE_SHARDS,
  entityOf,
  isId,
  MAX_ADDRESSES,
  orderKeys,
  ORDER_STATUSES,
  STATS_ATTRIBUTES,
  statsOf,
  type OrderStatus,
} from '../src/model';
import { seed, type SeedTarget } from '../src/ops/seed';
import { customerItems, orderCounts, seededCustomers, seedItems, type SeedDataOptions, type SeededCustomer } from '../src/ops/seed-data';
import { startStack, type Stack } from './support/stack';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface Fresh extends SeedTarget {
  engine: EmbeddedEngine;
  close(): Promise<void>;
}

/** A new in-memory engine with the table, as `table:create` makes it. */
async function freshTable(): Promise<Fresh> {
  const engine = await startEngine();
  const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
  await ensureTable(doc, 'app');
  return {
    engine,
    doc,
    table: new Table('app', doc),
    async close() {
      doc.destroy();
      await engine.close();
    },
  };
}

async function scanAll(table: Table): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({ ExclusiveStartKey: start });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

const byKey = (a: Item, b: Item) => {
  const ka = `${String(a.PK)}\u0000${String(a.SK)}`;
  const kb = `${String(b.PK)}\u0000${String(b.SK)}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

function countBy<T>(list: readonly T[], key: (value: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of list) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
  return counts;
}

/** Newest first, as the customer's collection and the status index order them. */
function newestFirst<T extends { placedAt: string; id: string }>(orders: readonly T[]): T[] {
  const key = (order: T) => orderKeys.summarySk(order.placedAt, order.id);
  return [...orders].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

describe('Seeding a table with generated data', () => {
  it('writes exactly the requested customers and orders, each with its email guard, addresses, header and lines', async () => {
    const target = await freshTable();
    try {
      const result = await seed(target, { customers: 40, orders: 600, seed: 'counts', addresses: 4 });
      const items = await scanAll(target.table);

      expect(countBy(items, (item) => entityOf(item)?.type ?? 'UNKNOWN')).toEqual({
        PRODUCT: 500,
        CUSTOMER: 40,
        EMAIL: 40,
        ADDRESS: result.counts.addresses,
        ORDER: 600,
        ORDER_HEADER: 600,
        LINE: result.counts.lines,
      });
      expect(items).toHaveLength(result.counts.items);
      expect(result.write.items).toBe(result.counts.items);
      expect(result.write.requests).toBe(Math.ceil(result.counts.items / 25));
      expect(result.tableWasEmpty).toBe(true);

      const profiles = items.filter((item) => item.type === 'CUSTOMER');
      for (const profile of profiles) {
        expect(isId(String(profile.id))).toBe(true);
        const addresses = items.filter((item) => item.type === 'ADDRESS' && item.PK === profile.PK);
        expect(addresses.length).toBeLessThanOrEqual(4);
        // As putAddress leaves it: the profile's label set names exactly its addresses.
        expect([...((profile.addressLabels as Set<string> | undefined) ?? [])].sort()).toEqual(addresses.map((a) => a.label).sort());
        expect(
          items.some(
            (item) => item.type === 'EMAIL' && item.customerId === profile.id && item.PK === `EMAIL#${String(profile.email).toLowerCase()}`,
          ),
        ).toBe(true);
      }
      const headers = new Map(items.filter((item) => item.type === 'ORDER_HEADER').map((item) => [item.id, item]));
      for (const summary of items.filter((item) => item.type === 'ORDER')) {
        expect(isId(String(summary.id))).toBe(true);
        const header = headers.get(summary.id)!;
        for (const field of ['customerId', 'placedAt', 'status', 'totalCents', 'lineCount']) expect(header[field]).toEqual(summary[field]);
        const lines = items.filter((item) => item.type === 'LINE' && item.PK === header.PK);
        expect(lines).toHaveLength(Number(summary.lineCount));
        expect(lines.reduce((sum, line) => sum + Number(line.quantity) * Number(line.unitPriceCents), 0)).toBe(summary.totalCents);
      }
      // Every line is of a catalogue product, at its price: placeOrder would have charged the same.
      const catalogue = new Map(items.filter((item) => item.type === 'PRODUCT').map((item) => [item.sku, item]));
      for (const line of items.filter((item) => item.type === 'LINE')) {
        expect(catalogue.get(line.sku)).toMatchObject({
          PK: 'CATALOG',
          SK: `PRODUCT#${String(line.sku)}`,
          priceCents: line.unitPriceCents,
          active: true,
        });
      }
    } finally {
      await target.close();
    }
  });

  it('writes the same items for the same seed, and other items for another seed', async () => {
    const options: SeedDataOptions = { customers: 12, orders: 150, seed: 'same' };
    const tables = await Promise.all([freshTable(), freshTable(), freshTable()]);
    try {
      await seed(tables[0]!, options);
      await seed(tables[1]!, options);
      await seed(tables[2]!, { ...options, seed: 'other' });
      const [first, second, other] = await Promise.all(tables.map(async (t) => (await scanAll(t.table)).sort(byKey)));

      expect(second).toEqual(first);
      // Exactly the generator's items, ids included.
      expect(first).toEqual([...seedItems(options, DEFAULT_WRITE_SHARDS)].sort(byKey));
      const keys = new Set(first!.map((item) => `${String(item.PK)}|${String(item.SK)}`));
      // The catalogue is the same for every seed (so two seeds can share a table); nothing else is shared.
      const isCatalog = (item: Item) => item.PK === 'CATALOG';
      expect(other!.filter(isCatalog)).toEqual(first!.filter(isCatalog));
      expect(other!.filter((item) => !isCatalog(item) && keys.has(`${String(item.PK)}|${String(item.SK)}`))).toEqual([]);
      expect(other!.filter((item) => item.type === 'CUSTOMER').map((item) => item.id)).not.toEqual(
        first!.filter((item) => item.type === 'CUSTOMER').map((item) => item.id),
      );
    } finally {
      await Promise.all(tables.map((t) => t.close()));
    }
  });

  it('makes ids of the ULID shape that sort by creation time, without the wall clock', () => {
    const customers = [...seededCustomers({ customers: 20, orders: 400, seed: 'ids' })];
    for (const { customer, orders } of customers) {
      expect(customer.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      for (const order of orders) expect(order.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    }
    const orders = customers.flatMap((c) => c.orders);
    const byId = [...orders].sort((a, b) => (a.id < b.id ? -1 : 1));
    const byTime = [...orders].sort((a, b) => (a.placedAt < b.placedAt ? -1 : a.placedAt > b.placedAt ? 1 : a.id < b.id ? -1 : 1));
    expect(byId.map((o) => o.id)).toEqual(byTime.map((o) => o.id));
    expect(new Set(orders.map((o) => o.id)).size).toBe(orders.length);
  });

  it('spreads orders unevenly: a few customers with many, most with few, adding up exactly', () => {
    const counts = orderCounts({ customers: 1000, orders: 100_000, seed: 'skew' });
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100_000);
    const sorted = [...counts].sort((a, b) => b - a);
    expect(sorted[0]).toBeGreaterThan(10_000); // Zipf: the top customer has about 1/H(1000) ≈ 13% of all orders
    expect(sorted[500]).toBeLessThan(100); // the median customer is below the mean of 100
    expect(orderCounts({ customers: 7, orders: 3, seed: 'few' }).reduce((a, b) => a + b, 0)).toBe(3);
    // Customers do not depend on --orders: the same seed gives the same people.
    const a = [...seededCustomers({ customers: 5, orders: 10, seed: 'people' })].map((c) => c.customer);
    const b = [...seededCustomers({ customers: 5, orders: 500, seed: 'people' })].map((c) => c.customer);
    expect(b).toEqual(a);
  });

  it('spreads statuses over the whole status machine, recent orders early in it and old ones at its end', () => {
    const orders = [...seededCustomers({ customers: 200, orders: 5000, seed: 'statuses', until: '2026-09-30T00:00:00.000Z' })].flatMap(
      (c) => c.orders,
    );
    const counts = countBy(orders, (order) => order.status);
    for (const status of ORDER_STATUSES) expect(counts[status], status).toBeGreaterThan(0);
    const ageDays = (placedAt: string) => (Date.parse('2026-09-30T00:00:00.000Z') - Date.parse(placedAt)) / 86_400_000;
    const early: OrderStatus[] = ['PENDING', 'PAID'];
    for (const order of orders) {
      if (ageDays(order.placedAt) > 10) expect(['DELIVERED', 'CANCELLED']).toContain(order.status);
      if (order.status === 'PENDING') expect(ageDays(order.placedAt)).toBeLessThan(3);
      if (order.status === 'DELIVERED') expect(ageDays(order.placedAt)).toBeGreaterThanOrEqual(3);
      if (ageDays(order.placedAt) < 1) expect([...early, 'CANCELLED']).toContain(order.status);
    }
  });

  it('keeps every customer within the address bound', () => {
    const customers = [...seededCustomers({ customers: 300, orders: 0, seed: 'addresses', addresses: MAX_ADDRESSES })];
    expect(Math.max(...customers.map((c) => c.addresses.length))).toBeLessThanOrEqual(MAX_ADDRESSES);
    expect(Math.max(...customers.map((c) => c.addresses.length))).toBeGreaterThan(3);
    expect(customers.every((c) => new Set(c.addresses.map((a) => a.label)).size === c.addresses.length)).toBe(true);
  });

  it('re-sends what a BatchWriteItem leaves unprocessed until every item is written', async () => {
    const target = await freshTable();
    let calls = 0;
    // Every other call, the engine writes only the first 10 items and hands back the rest.
    target.engine.faults.inject('BatchWriteItem', async (request) => {
      if (calls++ % 2 === 1) return undefined;
      const requests = request.body.RequestItems.app as unknown[];
      if (requests.length <= 10) return undefined;
      const answer = await request.forward({ ...request.body, RequestItems: { app: requests.slice(0, 10) } });
      return { ...answer, body: { ...(answer.body as object), UnprocessedItems: { app: requests.slice(10) } } };
    });
    try {
      const result = await seed(target, { customers: 10, orders: 120, seed: 'partial', concurrency: 3 });
      expect(result.write.retries).toBeGreaterThan(0);
      expect(result.write.unprocessed).toBeGreaterThan(0);
      expect((await scanAll(target.table)).sort(byKey)).toEqual(
        [...seedItems({ customers: 10, orders: 120, seed: 'partial' }, DEFAULT_WRITE_SHARDS)].sort(byKey),
      );
    } finally {
      await target.close();
    }
  });

  it('gives up, reporting the unprocessed items, when a batch never gets through', async () => {
    const target = await freshTable();
    target.engine.faults.inject('BatchWriteItem', (request) => ({ status: 200, body: { UnprocessedItems: request.body.RequestItems } }));
    try {
      await expect(seed(target, { customers: 2, orders: 3, seed: 'stuck' })).rejects.toThrow(/unprocessed after 10 rounds/);
    } finally {
      await target.close();
    }
  });

  it('refuses impossible requests before writing anything', async () => {
    const target = await freshTable();
    try {
      await expect(seed(target, { customers: 0, orders: 5 })).rejects.toThrow(/at least one customer/);
      await expect(seed(target, { customers: 3, orders: 5, addresses: MAX_ADDRESSES + 1 })).rejects.toThrow(/addresses must be/);
      await expect(seed(target, { customers: -1, orders: 0 })).rejects.toThrow(/customers must be/);
      expect(target.engine.wire.count('BatchWriteItem')).toBe(0);
    } finally {
      await target.close();
    }
  });
});

describe('Seeded data served over GraphQL', () => {
  const options: SeedDataOptions = { customers: 30, orders: 900, seed: 'graphql', addresses: 5 };
  let stack: Stack;
  let customers: SeededCustomer[];

  beforeAll(async () => {
    stack = await startStack();
    await seed(stack, options);
    customers = [...seededCustomers(options)];
  });
  afterAll(async () => {
    await stack?.close();
  });

  const ORDER = 'id placedAt status totalCents';
  const orderData = (order: SeededCustomer['orders'][number]) => ({
    id: order.id,
    placedAt: order.placedAt,
    status: order.status,
    totalCents: order.totalCents,
  });

  it('stores each entity with exactly the attributes the write path gives it', async () => {
    // The same entities, written by the product's own mutations.
    const created = await stack.gql(`mutation { createCustomer(input: { name: "Write Path", email: "write.path@example.com" }) { id } }`);
    const customerId = created.data.createCustomer.id as string;
    const written = await stack.gql(
      `mutation($id: ID!) {
        putAddress(customerId: $id, input: { label: "home", street: "Calle 1", city: "Madrid", postalCode: "28001", country: "ES" }) { label }
        putProduct(input: { sku: "WRITE-PATH-1", name: "Written", priceCents: 499, active: true }) { sku }
        placeOrder(input: { customerId: $id, idempotencyKey: "write-path-1", placedAt: "2025-11-02T10:00:00Z", lines: [{ sku: "SKU-0001", quantity: 2 }, { sku: "WRITE-PATH-1", quantity: 1 }] }) { id }
      }`,
      { id: customerId },
    );
    expect(written.errors).toBeUndefined();
    const orderId = written.data.placeOrder.id as string;
    const all = await stack.items();
    const mine = (item: Item) =>
      item.PK === `CUSTOMER#${customerId}` ||
      item.PK === `ORDER#${orderId}` ||
      item.customerId === customerId ||
      item.SK === 'PRODUCT#WRITE-PATH-1';
    const shapeOf = (items: Item[]) => {
      const shapes: Record<string, string[]> = {};
      for (const item of items) shapes[entityOf(item)?.type ?? 'UNKNOWN'] ??= Object.keys(item).sort();
      return shapes;
    };
    const seededWithAddresses = [...seedItems(options, DEFAULT_WRITE_SHARDS)].filter(
      (item) => item.PK === `CUSTOMER#${customers.find((c) => c.addresses.length > 0)!.customer.id}` || item.type !== 'CUSTOMER',
    );
    // (placeOrder's idempotency record is not among them: the seed leaves those out, see seed-data.ts.)
    // Nor the outbox: the seed is a snapshot without a history, so it writes no events and its
    // roots no `eventSeq` (absent is 0: the next mutation of a seeded customer emits sequence 1).
    const writePath = all.filter(mine);
    const events = writePath
      .filter((item) => item.type === 'EVENT')
      .map((item) => `${String(item.aggregateType)}: ${String(item.eventType)}`);
    expect(events.sort()).toEqual(['Customer: AddressPut', 'Customer: CustomerCreated', 'Order: OrderPlaced']);
    expect(all.find((item) => item.SK === 'PRODUCT#WRITE-PATH-1')!.eventSeq).toBe(1);
    expect(seededWithAddresses.filter((item) => item.type === 'EVENT' || 'eventSeq' in item)).toEqual([]);
    const withoutOutbox = writePath.filter((item) => item.type !== 'EVENT').map(({ eventSeq: _seq, ...item }) => item);
    // The figures of Customer.stats: the relay writes them on the write path's profile (no relay
    // runs here), the seed counts them itself (checked with their values below).
    const withoutStats = (items: Item[]) =>
      items.map((item) =>
        Object.fromEntries(Object.entries(item).filter(([name]) => !(STATS_ATTRIBUTES as readonly string[]).includes(name))),
      );
    expect(shapeOf(withoutStats(seededWithAddresses))).toEqual(shapeOf(withoutStats(withoutOutbox)));
  });

  it("serves the busiest customer's screen: profile, addresses and the newest orders first, in one request", async () => {
    const busiest = [...customers].sort((a, b) => b.orders.length - a.orders.length)[0]!;
    expect(busiest.orders.length).toBeGreaterThan(100);
    const measured = await stack.measure(
      `query($id: ID!) { customer(id: $id) { id name email createdAt addresses { label street city postalCode country } orders(first: 20) { nodes { ${ORDER} } pageInfo { hasNextPage } } } }`,
      { id: busiest.customer.id },
    );
    expect(measured.response.errors).toBeUndefined();
    expect(measured.response.data.customer).toEqual({
      ...busiest.customer,
      addresses: busiest.addresses,
      orders: { nodes: newestFirst(busiest.orders).slice(0, 20).map(orderData), pageInfo: { hasNextPage: true } },
    });
    expect(measured.wire.map((request) => request.operation)).toEqual(['Query']);
  });

  it('counts each customer’s orders in Customer.stats, as the relay counts placed orders (no event is seeded)', async () => {
    const busiest = [...customers].sort((a, b) => b.orders.length - a.orders.length)[0]!;
    const query = 'query($id: ID!) { customer(id: $id) { stats { orderCount lifetimeCents asOf } } }';
    const measured = await stack.measure(query, { id: busiest.customer.id });
    expect(measured.response.data.customer.stats).toEqual(statsOf(busiest.orders));
    expect(measured.response.data.customer.stats.orderCount).toBe(busiest.orders.length);
    expect(measured.wire.map((request) => request.operation)).toEqual(['GetItem']); // the profile alone
    // A customer without orders (none in this seed): no figures, the baseline its creation, as createCustomer writes it.
    const profile = customerItems({ ...busiest, orders: [] }, DEFAULT_WRITE_SHARDS)[0]!;
    expect(profile.statsBaseline).toBe(busiest.customer.createdAt);
    expect(STATS_ATTRIBUTES.filter((name) => name in profile)).toEqual([]);
  });

  it('finds a seeded customer by email, and an order with its lines', async () => {
    const someone = customers.find((c) => c.orders.length > 0 && c.addresses.length > 0)!;
    const order = someone.orders[0]!;
    const response = await stack.gql(
      `query($email: String!, $order: ID!) { customerByEmail(email: $email) { id name } order(id: $order) { ${ORDER} customer { id } lines { lineNo sku quantity unitPriceCents } } }`,
      { email: someone.customer.email.toUpperCase(), order: order.id },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data).toEqual({
      customerByEmail: { id: someone.customer.id, name: someone.customer.name },
      order: { ...orderData(order), customer: { id: someone.customer.id }, lines: order.lines },
    });
  });

  it('lists the seeded orders of a status, newest first, across the status shards', async () => {
    const delivered = newestFirst(customers.flatMap((c) => c.orders).filter((order) => order.status === 'DELIVERED'));
    expect(delivered.length).toBeGreaterThan(50);
    const response = await stack.gql(`{ ordersByStatus(status: DELIVERED, first: 50) { nodes { ${ORDER} } pageInfo { hasNextPage } } }`);
    expect(response.errors).toBeUndefined();
    expect(response.data.ordersByStatus).toEqual({ nodes: delivered.slice(0, 50).map(orderData), pageInfo: { hasNextPage: true } });
  });
});
