/**
 * Request budgets of the customer collection without an engine: what `planCollection` and
 * `CustomerCollections.plan` would send for typical needs (the Query inputs, `Limit`s included),
 * and, on an in-memory collection, what `CustomerCollections.load` sends and answers: one wave
 * for a screen, a second only to tell existence (a month without orders) or for data over a
 * declared bound (an 11th address), which is answered, not an internal error.
 */
import { describe, expect, it } from 'vitest';
import type { Item, Table } from '../../src/dynamo/table';
import {
  DEFAULT_WRITE_SHARDS,
  addressToItem,
  checkOrderWindow,
  customerToItem,
  CustomerCollections,
  MAX_ADDRESSES,
  newId,
  planCollection,
  summaryToItem,
  type CollectionAnomaly,
  type CollectionNeed,
  type OrderRecord,
} from '../../src/model';

const id = newId();
const newest = (first: number) => checkOrderWindow(id, { first });
const month = (m: string, first: number) => checkOrderWindow(id, { month: m, first });
const need = (parts: Partial<CollectionNeed>): CollectionNeed => ({ profile: false, addresses: false, windows: [], ...parts });

describe('planCollection: the Queries a need would send', () => {
  it('the customer screen is one descending Query with Limit 1 + 10 + 20 + 1', () => {
    const plan = planCollection(id, need({ profile: true, addresses: true, windows: [newest(20)] }));
    expect(plan.map((q) => q.pattern)).toEqual(['customerScreen']);
    expect(plan[0]!.input).toEqual({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `CUSTOMER#${id}` },
      ScanIndexForward: false,
      Limit: 1 + MAX_ADDRESSES + 20 + 1,
    });
  });

  it('the profile and the newest orders start at the profile: Limit 1 + first + 1', () => {
    const [query, ...rest] = planCollection(id, need({ profile: true, windows: [newest(5)] }));
    expect(rest).toEqual([]);
    expect(query!.input).toMatchObject({
      KeyConditionExpression: 'PK = :pk AND SK <= :profile',
      ExpressionAttributeValues: { ':profile': 'PROFILE' },
      ScanIndexForward: false,
      Limit: 7,
    });
  });

  it('the profile alone is SK = PROFILE, Limit 1', () => {
    const plan = planCollection(id, need({ profile: true }));
    expect(plan.map((q) => [q.pattern, q.input.KeyConditionExpression, q.input.Limit])).toEqual([
      ['customerHead', 'PK = :pk AND SK = :profile', 1],
    ]);
  });

  it('the addresses alone read the head ascending: begins_with(SK, PROFILE), Limit 1 + 10, no orders', () => {
    const plan = planCollection(id, need({ addresses: true }));
    expect(plan).toHaveLength(1);
    expect(plan[0]!.input).toEqual({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :head)',
      ExpressionAttributeValues: { ':pk': `CUSTOMER#${id}`, ':head': 'PROFILE' },
      Limit: 1 + MAX_ADDRESSES,
    });
    expect(plan[0]!.input.ScanIndexForward).toBeUndefined();
  });

  it('a month window is one descending Query over that month: Limit first + 1', () => {
    const plan = planCollection(id, need({ windows: [month('2026-09', 10)] }));
    expect(plan.map((q) => q.pattern)).toEqual(['customerOrderWindow']);
    expect(plan[0]!.input).toMatchObject({ ExpressionAttributeValues: { ':prefix': 'ORDER#2026-09' }, ScanIndexForward: false, Limit: 11 });
  });

  it('two runs (the screen and a month) are two independent Queries: one wave', () => {
    const plan = planCollection(id, need({ profile: true, addresses: true, windows: [newest(3), month('2026-08', 3)] }));
    expect(plan.map((q) => [q.pattern, q.input.Limit])).toEqual([
      ['customerScreen', 1 + MAX_ADDRESSES + 4],
      ['customerOrderWindow', 4],
    ]);
  });
});

describe('CustomerCollections.plan: a batch of field needs', () => {
  const collections = () => new CustomerCollections({} as Table);

  it('merges the needs of one customer (aliases, fragments) into one screen Query, the widest window', () => {
    const plan = collections().plan([
      { customerId: id, need: need({ profile: true }) },
      { customerId: id, need: need({ addresses: true }) },
      { customerId: id, need: need({ windows: [newest(3)] }) },
      { customerId: id, need: need({ windows: [newest(20)] }) },
    ]);
    expect(plan.profiles).toEqual([]);
    expect(plan.queries.map(({ query }) => [query.pattern, query.input.Limit])).toEqual([['customerScreen', 1 + MAX_ADDRESSES + 20 + 1]]);
  });

  it('sends the profiles of customers wanted for their profile alone as one read, beside the other Queries', () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const plan = collections().plan([
      { customerId: a, need: need({ profile: true }) },
      { customerId: b, need: need({ profile: true }) },
      { customerId: c, need: need({ addresses: true, windows: [newest(20)] }) },
    ]);
    expect(plan.profiles).toEqual([a, b]);
    expect(plan.queries.map(({ customerId, query }) => [customerId, query.pattern])).toEqual([[c, 'customerScreen']]);
  });
});

// ---- on an in-memory collection ----------------------------------------------------------------

/** A base table of customer collections answering the planned Query shapes, recording each request. */
function memoryTable(items: readonly Item[]) {
  const sent: string[] = [];
  const sorted = [...items].sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1));
  const table = {
    query: async (input: {
      KeyConditionExpression: string;
      ExpressionAttributeValues: Record<string, string>;
      ScanIndexForward?: boolean;
      Limit?: number;
      ExclusiveStartKey?: { SK: string };
    }) => {
      sent.push(`Query ${input.KeyConditionExpression} Limit ${input.Limit}`);
      const values = input.ExpressionAttributeValues;
      const [, condition = ''] = input.KeyConditionExpression.split(' AND ');
      const matches = (sk: string) =>
        condition === ''
          ? true
          : condition === 'SK <= :profile'
            ? sk <= values[':profile']!
            : condition === 'SK = :profile'
              ? sk === values[':profile']
              : sk.startsWith(values[condition.includes(':head') ? ':head' : ':prefix']!);
      let range = sorted.filter((item) => item.PK === values[':pk'] && matches(String(item.SK)));
      if (input.ScanIndexForward === false) range = range.reverse();
      const start = input.ExclusiveStartKey?.SK;
      if (start !== undefined)
        range = range.filter((item) => (input.ScanIndexForward === false ? String(item.SK) < start : String(item.SK) > start));
      const page = range.slice(0, input.Limit ?? range.length);
      const last = page.at(-1);
      return {
        Items: page,
        Count: page.length,
        LastEvaluatedKey: page.length < range.length && last ? { PK: last.PK, SK: last.SK } : undefined,
      };
    },
    get: async (input: { Key: { PK: string; SK: string } }) => {
      sent.push('GetItem');
      return items.find((item) => item.PK === input.Key.PK && item.SK === input.Key.SK);
    },
    batchGet: async (keys: Array<{ PK: string; SK: string }>) => {
      sent.push('BatchGetItem');
      return items.filter((item) => keys.some((key) => key.PK === item.PK && key.SK === item.SK));
    },
  } as unknown as Table;
  return { table, sent };
}

function customerWith(addresses: number, orders: number) {
  const customerId = newId();
  const profile = { id: customerId, name: 'Ana', email: 'ana@example.com', createdAt: '2026-01-01T00:00:00.000Z' };
  const orderRecords: OrderRecord[] = Array.from({ length: orders }, (_, i) => ({
    id: newId(),
    customerId,
    placedAt: `2026-09-${String(28 - (i % 28)).padStart(2, '0')}T${String(23 - Math.floor(i / 28)).padStart(2, '0')}:00:00.000Z`,
    status: 'PAID',
    totalCents: 100,
    lineCount: 1,
  }));
  const labels = Array.from({ length: addresses }, (_, i) => `label-${String(i).padStart(2, '0')}`);
  const items = [
    customerToItem(profile),
    ...labels.map((label) => addressToItem(customerId, { label, street: 's', city: 'c', postalCode: 'p', country: 'ES' })),
    ...orderRecords.map((order) => summaryToItem(order, DEFAULT_WRITE_SHARDS)),
  ];
  const newestFirst = [...orderRecords].sort((a, b) => (a.placedAt < b.placedAt ? 1 : -1));
  return { customerId, profile, labels, orders: newestFirst, items };
}

describe('CustomerCollections.load: sends a plan, absorbs it, answers from it', () => {
  it('answers the screen with one Query, then answers child fields from what it holds', async () => {
    const ana = customerWith(2, 30);
    const { table, sent } = memoryTable(ana.items);
    const collections = new CustomerCollections(table);
    const screen = need({
      profile: true,
      addresses: true,
      windows: [collections.window(ana.customerId, { first: 20, month: undefined, after: undefined })],
    });
    const [view] = await collections.load([{ customerId: ana.customerId, need: screen }]);
    expect(sent).toEqual([`Query PK = :pk Limit ${1 + MAX_ADDRESSES + 20 + 1}`]);
    expect(view).toMatchObject({ profile: ana.profile, addresses: ana.labels.map((label) => expect.objectContaining({ label })) });
    expect((view as { pages: Array<{ orders: OrderRecord[]; hasNextPage: boolean }> }).pages[0]).toMatchObject({
      orders: ana.orders.slice(0, 20),
      hasNextPage: true,
    });
    // A child field's part is known: no read.
    expect(collections.known(ana.customerId, need({ addresses: true }))?.addresses).toHaveLength(2);
    expect(collections.known(ana.customerId, need({ windows: [newest(40)] }))).toBeUndefined();
  });

  it('tells a month without orders from a missing customer with the profile, in a second wave', async () => {
    const ana = customerWith(1, 3);
    const { table, sent } = memoryTable(ana.items);
    const collections = new CustomerCollections(table);
    const missing = newId();
    const august = (customerId: string) =>
      need({ windows: [collections.window(customerId, { first: 5, month: '2026-08', after: undefined })] });
    const [present, absent] = await collections.load([
      { customerId: ana.customerId, need: august(ana.customerId) },
      { customerId: missing, need: august(missing) },
    ]);
    expect(sent).toEqual([
      'Query PK = :pk AND begins_with(SK, :prefix) Limit 6',
      'Query PK = :pk AND begins_with(SK, :prefix) Limit 6',
      'BatchGetItem',
    ]);
    expect(present).toMatchObject({ pages: [{ orders: [], hasNextPage: false }] });
    expect(absent).toBeNull();
  });

  it('answers a customer with 11 addresses (over the bound): the first 10 by label, every order, and reports it', async () => {
    const over = customerWith(MAX_ADDRESSES + 1, 25);
    const { table, sent } = memoryTable(over.items);
    const anomalies: CollectionAnomaly[] = [];
    const collections = new CustomerCollections(table, { onAnomaly: (anomaly) => anomalies.push(anomaly) });
    const screen = need({
      profile: true,
      addresses: true,
      windows: [collections.window(over.customerId, { first: 20, month: undefined, after: undefined })],
    });
    const [view] = await collections.load([{ customerId: over.customerId, need: screen }]);
    expect(view).not.toBeInstanceOf(Error);
    const answered = view as { addresses: Array<{ label: string }>; pages: Array<{ orders: OrderRecord[]; hasNextPage: boolean }> };
    expect(answered.addresses.map((a) => a.label)).toEqual(over.labels.slice(0, MAX_ADDRESSES));
    expect(answered.pages[0]).toMatchObject({ orders: over.orders.slice(0, 20), hasNextPage: true });
    expect(anomalies).toEqual([expect.objectContaining({ customerId: over.customerId, member: 'addresses' })]);
    // The screen's Limit counts on the bound, so its orders ran short: they are read again from the profile down.
    expect(sent).toEqual([`Query PK = :pk Limit ${1 + MAX_ADDRESSES + 20 + 1}`, 'Query PK = :pk AND SK <= :profile Limit 22']);
  });

  it('answers the addresses alone of such a customer with the same 10, in one Query', async () => {
    const over = customerWith(MAX_ADDRESSES + 1, 3);
    const { table, sent } = memoryTable(over.items);
    const [view] = await new CustomerCollections(table, { onAnomaly: () => {} }).load([
      { customerId: over.customerId, need: need({ addresses: true }) },
    ]);
    expect((view as { addresses: Array<{ label: string }> }).addresses.map((a) => a.label)).toEqual(over.labels.slice(0, MAX_ADDRESSES));
    expect(sent).toEqual([`Query PK = :pk AND begins_with(SK, :head) Limit ${1 + MAX_ADDRESSES}`]);
  });

  it('fails only the customer whose collection holds an item of no member (corrupt data), not its batch', async () => {
    const good = customerWith(1, 2);
    const bad = customerWith(1, 2);
    const foreign = { PK: `CUSTOMER#${bad.customerId}`, SK: 'PROFILE#NOTE#1', type: 'NOTE' };
    const { table } = memoryTable([...good.items, ...bad.items, foreign]);
    const collections = new CustomerCollections(table);
    const screen = (customerId: string) =>
      need({ addresses: true, windows: [collections.window(customerId, { first: 5, month: undefined, after: undefined })] });
    const [ok, failed] = await collections.load([
      { customerId: good.customerId, need: screen(good.customerId) },
      { customerId: bad.customerId, need: screen(bad.customerId) },
    ]);
    expect(ok).toMatchObject({ profile: good.profile });
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(/type NOTE, no member's/);
  });

  it('answers a profile just written without a read', async () => {
    const { table, sent } = memoryTable([]);
    const collections = new CustomerCollections(table);
    const profile = { id, name: 'N', email: 'n@example.com', createdAt: '2026-01-01T00:00:00.000Z' };
    collections.knowNewCustomer(profile);
    expect(collections.plan([{ customerId: id, need: need({ profile: true, addresses: true, windows: [newest(20)] }) }])).toEqual({
      queries: [],
      profiles: [],
    });
    expect(collections.known(id, need({ addresses: true, windows: [newest(20)] }))).toMatchObject({
      addresses: [],
      pages: [{ orders: [] }],
    });
    expect(sent).toEqual([]);
  });
});
