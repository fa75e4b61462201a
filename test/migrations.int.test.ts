/**
 * Migrations and backfills (src/migrations), proven with a real new access pattern: orders by SKU,
 * served by GSI1 on the order lines. Lines written before the pattern existed carry no GSI1 keys;
 * migration 0001 backfills them. Each test that counts starts its own stack, so counts are exact.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { errorResponse } from '../src/engine/embedded';
import type { Item } from '../src/dynamo/table';
import { findMigration, migrations, migrationStatuses, RateLimiter, runMigration, type Clock, type Limiter } from '../src/migrations';
import { migration as m0001 } from '../src/migrations/0001-order-lines-by-sku';
import { entityOf, lineToItem, migrationKeys, migrationState, newId, orderKeys, skuKeys, type OrderLineRecord } from '../src/model';
import { buildCustomer, customerItems, expectBadInput, expectBudget, loadProducts, newestFirst, type CustomerFixture, type OrderFixture } from './support/fixtures';
import { dataOf } from './support/graphql';
import { startStack, type Stack } from './support/stack';

const root = fileURLToPath(new URL('..', import.meta.url));

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});
async function freshStack(): Promise<Stack> {
  const stack = await startStack();
  stacks.push(stack);
  return stack;
}

// ---- data as the old code stored it --------------------------------------------------------------

const isLine = (item: Item) => String(item.PK).startsWith('ORDER#') && String(item.SK).startsWith('LINE#');
const isData = (item: Item) => !String(item.PK).startsWith('MIGRATION#');
const keyOf = (item: Item) => `${String(item.PK)}|${String(item.SK)}`;
const sortItems = (items: readonly Item[]) => [...items].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));

/** A customer's items as the code before ordersBySku stored them: lines without GSI1 keys. */
function legacyItems(fixture: CustomerFixture): Item[] {
  return customerItems(fixture).map((item) => {
    if (!isLine(item)) return item;
    const { GSI1PK: _pk, GSI1SK: _sk, ...old } = item;
    return old;
  });
}

/** Loads `customers` customers of `orders` orders each, stored the old way; returns the fixtures. */
async function loadLegacy(stack: Stack, customers: number, orders: number): Promise<CustomerFixture[]> {
  const fixtures = Array.from({ length: customers }, (_, i) => buildCustomer({ orders, newest: `2026-0${1 + (i % 9)}-20T12:00:00.000Z`, spacingMinutes: 17 * 60 + i }));
  const items = fixtures.flatMap(legacyItems);
  expect(items.filter(isLine).every((line) => line.GSI1PK === undefined && line.GSI1SK === undefined)).toBe(true);
  await stack.load(items);
  return fixtures;
}

const linesOf = (fixtures: readonly CustomerFixture[]) => fixtures.flatMap((f) => f.orders.flatMap((o) => o.lines.map((line) => ({ order: o, line }))));

const BY_SKU = `query($sku: String!, $first: Int, $after: String) {
  ordersBySku(sku: $sku, first: $first, after: $after) {
    nodes { id placedAt status totalCents customer { name } lines { lineNo sku quantity unitPriceCents } }
    pageInfo { hasNextPage }
  }
}`;

function bySkuData(fixtures: readonly CustomerFixture[], sku: string, hasNextPage = false) {
  const names = new Map(fixtures.map((f) => [f.customer.id, f.customer.name]));
  const orders = newestFirst(fixtures.flatMap((f) => f.orders).filter((order) => order.lines.some((line) => line.sku === sku)));
  return {
    ordersBySku: {
      nodes: orders.map((order: OrderFixture) => ({
        id: order.id, placedAt: order.placedAt, status: order.status, totalCents: order.totalCents,
        customer: { name: names.get(order.customerId) }, lines: order.lines.map((line) => ({ ...line })),
      })),
      pageInfo: { hasNextPage },
    },
  };
}

const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id placedAt status totalCents } }`;
const CREATE = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name } }`;

async function createCustomer(stack: Stack, name = 'Ana') {
  return dataOf(await stack.gql(CREATE, { input: { name, email: `${name.toLowerCase()}.${newId().toLowerCase()}@example.com` } })).createCustomer as { id: string; name: string };
}

/** A SKU's catalog price in these tests. */
const priceOf = (sku: string) => 100 + [...sku].reduce((sum, c) => sum + c.charCodeAt(0), 0);
const stocked = new WeakMap<Stack, Set<string>>();

/** Puts the SKUs not yet in this stack's catalog there (placeOrder prices from it). */
async function stock(stack: Stack, skus: readonly string[]) {
  const known = stocked.get(stack) ?? new Set<string>();
  stocked.set(stack, known);
  const fresh = [...new Set(skus)].filter((sku) => !known.has(sku));
  if (fresh.length > 0) await loadProducts(stack, fresh.map((sku) => ({ sku, priceCents: priceOf(sku) })));
  for (const sku of fresh) known.add(sku);
}

async function placeOrder(stack: Stack, customerId: string, placedAt: string, skus: string[]) {
  await stock(stack, skus);
  const lines = skus.map((sku, i) => ({ sku, quantity: 1 + i }));
  const order = dataOf(await stack.gql(PLACE, { input: { customerId, idempotencyKey: `k-${newId()}`, placedAt, lines } })).placeOrder;
  return { ...order, lines: lines.map((line, i): OrderLineRecord => ({ lineNo: i + 1, ...line, unitPriceCents: priceOf(line.sku) })) } as { id: string; placedAt: string; status: string; totalCents: number; lines: OrderLineRecord[] };
}

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];

// ---- the access pattern ----------------------------------------------------------------------------

describe('orders by SKU (GSI1 on the order lines)', () => {
  it('does not reach orders stored before the SKU index, and reaches them, whole and newest first, once migration 0001 has run', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 3, 12);
    const before = await stack.gql(BY_SKU, { sku: 'MUG-002', first: 20 });
    expect(before).toMatchObject({ data: { ordersBySku: { nodes: [], pageInfo: { hasNextPage: false } } } });
    expect(before.errors).toBeUndefined();

    const report = await runMigration(stack.table, m0001);
    expect(report.outcome).toBe('applied');

    const expected = bySkuData(fixtures, 'MUG-002');
    expect(expected.ordersBySku.nodes.length).toBe(15); // 5 of each customer's 12 orders (a page of 20: lines are costly, see limits.ts)
    const after = await stack.gql(BY_SKU, { sku: 'MUG-002', first: 20 });
    expect({ data: after.data, errors: after.errors }).toEqual({ data: expected, errors: undefined });
    // Every line now carries exactly the keys placeOrder would have written.
    const lines = (await stack.items()).filter(isLine);
    for (const { order, line } of linesOf(fixtures)) {
      const stored = lines.find((item) => item.PK === orderKeys.pk(order.id) && item.SK === orderKeys.line(order.id, line.lineNo).SK);
      expect(stored).toEqual({ ...lineToItem(order.id, line), ...skuKeys.ofLine(order, line) });
    }
  });

  it('reaches a new order at once: placeOrder writes the index keys with its lines, in its one transaction', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    const empty = await stack.gql(BY_SKU, { sku: 'LAMP-9' });
    expect(empty.data).toEqual({ ordersBySku: { nodes: [], pageInfo: { hasNextPage: false } } });

    await stock(stack, ['LAMP-9', 'BOOK-1']);
    stack.engine.wire.reset();
    const order = await placeOrder(stack, ana.id, '2026-09-15T10:30:00.000Z', ['LAMP-9', 'BOOK-1']);
    expect(stack.engine.wire.requests().map((r) => r.operation)).toEqual(['BatchGetItem', 'TransactWriteItems']);

    const response = await stack.gql(BY_SKU, { sku: 'LAMP-9' });
    expect({ data: response.data, errors: response.errors }).toEqual({
      data: { ordersBySku: { nodes: [{ id: order.id, placedAt: order.placedAt, status: 'PENDING', totalCents: order.totalCents, customer: { name: 'Ana' }, lines: order.lines }], pageInfo: { hasNextPage: false } } },
      errors: undefined,
    });
    const line = (await stack.items()).find((item) => item.PK === orderKeys.pk(order.id) && item.SK === 'LINE#0001');
    expect(line).toMatchObject({ GSI1PK: 'SKU#LAMP-9', GSI1SK: `2026-09-15T10:30:00.000Z#${order.id}#0001` });
  });

  it('lists an order once however many of its lines carry the SKU, and pages through every order exactly once', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    const o1 = await placeOrder(stack, ana.id, '2026-01-01T00:00:00.000Z', ['DUP-A', 'DUP-B', 'DUP-A']);
    const o2 = await placeOrder(stack, ana.id, '2026-01-02T00:00:00.000Z', ['DUP-A']);
    const o3 = await placeOrder(stack, ana.id, '2026-01-03T00:00:00.000Z', ['DUP-A', 'DUP-A', 'DUP-A', 'DUP-B']);
    await placeOrder(stack, ana.id, '2026-01-04T00:00:00.000Z', ['DUP-B']);
    const o5 = await placeOrder(stack, ana.id, '2026-01-05T00:00:00.000Z', ['DUP-A', 'DUP-A']);
    const PAGE = `query($after: String) { ordersBySku(sku: "DUP-A", first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`;

    const pages: Array<{ ids: string[]; hasNextPage: boolean }> = [];
    let after: string | null = null;
    do {
      const page: any = dataOf(await stack.gql(PAGE, { after })).ordersBySku;
      pages.push({ ids: page.edges.map((edge: any) => edge.node.id), hasNextPage: page.pageInfo.hasNextPage });
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(pages).toEqual([{ ids: [o5.id, o3.id], hasNextPage: true }, { ids: [o2.id, o1.id], hasNextPage: false }]);

    const all = dataOf(await stack.gql(`{ ordersBySku(sku: "DUP-A", first: 100) { nodes { id } } }`)).ordersBySku.nodes;
    expect(all).toEqual([o5, o3, o2, o1].map((o) => ({ id: o.id })));
    // The first page's 3 lines named 2 orders (o5 twice): one more Query, below o3, found the third.
    const measured = await stack.measure(`{ ordersBySku(sku: "DUP-A", first: 2) { nodes { id } } }`);
    expectBudget(measured, { requests: 3, waves: 3, operations: ['Query', 'Query', 'BatchGetItem'] });
    expect(measured.wire[1]?.body.ExpressionAttributeValues[':before']).toEqual({ S: `${o3.placedAt}#${o3.id}` });
  });

  it('serves a page with 2 requests in 2 waves: a Query on GSI1, then one BatchGetItem of the order headers', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 4, 20);
    await runMigration(stack.table, m0001);
    const expected = bySkuData(fixtures, 'TEE-003');
    expect(expected.ordersBySku.nodes.length).toBeGreaterThan(20);

    const measured = await stack.measure(`{ ordersBySku(sku: "TEE-003", first: 20) { nodes { id placedAt status totalCents } pageInfo { hasNextPage } } }`);
    expectBudget(measured, { requests: 2, waves: 2, operations: ['Query', 'BatchGetItem'] });
    expect(measured.response.data).toEqual({
      ordersBySku: { nodes: expected.ordersBySku.nodes.slice(0, 20).map(({ id, placedAt, status, totalCents }) => ({ id, placedAt, status, totalCents })), pageInfo: { hasNextPage: true } },
    });
    const [query, batch] = measured.wire;
    expect(query?.body).toMatchObject({ IndexName: 'GSI1', ScanIndexForward: false, Limit: 21, ExpressionAttributeValues: { ':pk': { S: 'SKU#TEE-003' } } });
    expect(batch?.body.RequestItems.app.Keys).toHaveLength(20);

    const none = await stack.measure(`{ ordersBySku(sku: "NO-SUCH-SKU") { nodes { id } pageInfo { hasNextPage endCursor } } }`);
    expectBudget(none, { requests: 1, waves: 1, operations: ['Query'] });
  });

  it('refuses a SKU with #, an empty SKU, a bad first, a forged cursor and a cursor of another list, before any request', async () => {
    const stack = await freshStack();
    const ana = await createCustomer(stack, 'Ana');
    await placeOrder(stack, ana.id, '2026-02-01T00:00:00.000Z', ['X-1', 'Y-1']);
    await placeOrder(stack, ana.id, '2026-02-02T00:00:00.000Z', ['X-1', 'Y-1']);
    const cursorOfX = dataOf(await stack.gql(`{ ordersBySku(sku: "X-1", first: 1) { pageInfo { endCursor } } }`)).ordersBySku.pageInfo.endCursor;
    const statusCursor = dataOf(await stack.gql(`{ ordersByStatus(status: PENDING, first: 1) { pageInfo { endCursor } } }`)).ordersByStatus.pageInfo.endCursor;
    const Q = `query($sku: String!, $first: Int, $after: String) { ordersBySku(sku: $sku, first: $first, after: $after) { nodes { id } } }`;

    expectBadInput(await stack.measure(Q, { sku: 'X#1' }));
    expectBadInput(await stack.measure(Q, { sku: '   ' }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', first: 0 }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', first: 101 }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: 'not-a-cursor' }));
    expectBadInput(await stack.measure(Q, { sku: 'Y-1', after: cursorOfX }));
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: statusCursor }));
    const forged = Buffer.from(JSON.stringify([1, 'sku:X-1', { before: 'SKU#X-1' }])).toString('base64url');
    expectBadInput(await stack.measure(Q, { sku: 'X-1', after: forged }));
    // The genuine cursor works.
    expect(dataOf(await stack.gql(Q, { sku: 'X-1', after: cursorOfX })).ordersBySku.nodes).toHaveLength(1);
  });
});

// ---- the runner ------------------------------------------------------------------------------------

describe('migration dry runs', () => {
  it('change nothing, send no write, and report what a run would do', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 3, 10);
    const ana = await createCustomer(stack, 'Ana');
    await placeOrder(stack, ana.id, '2026-03-01T00:00:00.000Z', ['MUG-002']); // already indexed: not selected
    const before = sortItems(await stack.items());

    stack.engine.wire.reset();
    const report = await runMigration(stack.table, m0001, { dryRun: true, pageSize: 25 });
    const sent = stack.engine.wire.requests().map((r) => r.operation);
    expect(sent.filter((operation) => WRITES.includes(operation))).toEqual([]);
    expect(new Set(sent)).toEqual(new Set(['Query', 'Scan', 'BatchGetItem']));
    expect(sortItems(await stack.items())).toEqual(before);

    expect(report).toMatchObject({ outcome: 'dry run', resumed: false, applied: undefined });
    expect(report.run).toEqual({ scanned: before.length, selected: linesOf(fixtures).length, updated: 0, skipped: 0, unresolved: 0 });
    expect((await migrationStatuses(stack.table, migrations))[0]).toMatchObject({ name: '0001-order-lines-by-sku', status: 'pending' });
  });
});

describe('migration reruns (idempotency)', () => {
  it('change nothing: a second run finds the applied record, a forced one finds nothing left to rewrite', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 3, 10);
    const first = await runMigration(stack.table, m0001);
    expect(first.run).toMatchObject({ selected: linesOf(fixtures).length, updated: linesOf(fixtures).length, skipped: 0, unresolved: 0 });
    const applied = sortItems(await stack.items());

    stack.engine.wire.reset();
    const second = await runMigration(stack.table, m0001);
    expect(second).toMatchObject({ outcome: 'already applied', scanRequests: 0, run: { scanned: 0, updated: 0 } });
    expect(stack.engine.wire.requests().map((r) => r.operation)).toEqual(['Query']);
    expect(sortItems(await stack.items())).toEqual(applied);

    stack.engine.wire.reset();
    const forced = await runMigration(stack.table, m0001, { force: true });
    expect(forced.outcome).toBe('applied');
    expect(forced.run).toEqual({ scanned: applied.length, selected: 0, updated: 0, skipped: 0, unresolved: 0 });
    const rewrites = stack.engine.wire.requests().filter((r) => r.operation === 'UpdateItem' && String(r.body.Key.PK.S).startsWith('ORDER#'));
    expect(rewrites).toEqual([]);
    const after = sortItems(await stack.items());
    expect(after.filter(isData)).toEqual(applied.filter(isData));
    expect(after.find((item) => item.SK === 'APPLIED')).toMatchObject({ runs: 2, appliedAt: applied.find((item) => item.SK === 'APPLIED')!.appliedAt });
  });

  it('never clobber an item changed after the scan read it, nor resurrect one deleted meanwhile', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 2, 6);
    const [changed, deleted] = linesOf(fixtures);
    const changedKey = orderKeys.line(changed!.order.id, changed!.line.lineNo);
    const deletedKey = orderKeys.line(deleted!.order.id, deleted!.line.lineNo);
    // Between the Scan that returns them and the rewrite: another writer changes one line's SKU
    // and deletes the other.
    let meddled = false;
    stack.engine.faults.inject('Scan', async (request) => {
      const response = await request.forward();
      const keys = ((response.body as any).Items ?? []).map((item: any) => keyOf(unmarshall(item)));
      if (!meddled && keys.includes(keyOf(changedKey)) && keys.includes(keyOf(deletedKey))) {
        meddled = true;
        await stack.load([{ ...lineToItem(changed!.order.id, changed!.line), sku: 'CHANGED-9' }]);
        await stack.table.delete({ Key: deletedKey });
      }
      return response;
    });
    const report = await runMigration(stack.table, m0001, { segments: 1, pageSize: 1000 });
    expect(meddled).toBe(true);
    expect(report.run).toMatchObject({ selected: linesOf(fixtures).length, updated: linesOf(fixtures).length - 2, skipped: 2 });

    const items = await stack.items();
    expect(items.find((item) => keyOf(item) === keyOf(deletedKey))).toBeUndefined();
    const stored = items.find((item) => keyOf(item) === keyOf(changedKey))!;
    expect(stored.sku).toBe('CHANGED-9');
    expect(stored.GSI1PK).toBeUndefined();

    // A forced rerun indexes the changed line under its new SKU.
    stack.engine.faults.clear();
    expect((await runMigration(stack.table, m0001, { force: true })).run).toMatchObject({ selected: 1, updated: 1 });
    expect(dataOf(await stack.gql(`{ ordersBySku(sku: "CHANGED-9") { nodes { id } } }`)).ordersBySku.nodes).toEqual([{ id: changed!.order.id }]);
  });

  it('leave a line whose order header is missing unresolved, and report it', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 1, 3);
    const orphanId = newId();
    await stack.load([lineToItem(orphanId, { lineNo: 1, sku: 'ORPHAN-1', quantity: 1, unitPriceCents: 100 })]);
    const dry = await runMigration(stack.table, m0001, { dryRun: true });
    expect(dry.run.unresolved).toBe(1);
    const report = await runMigration(stack.table, m0001);
    expect(report.total.unresolved).toBe(1);
    expect(report.applied?.counts.unresolved).toBe(1);
    expect((await stack.items()).find((item) => item.PK === orderKeys.pk(orphanId))?.GSI1PK).toBeUndefined();
  });
});

describe('migration checkpoints', () => {
  it('let a crashed run resume where each segment stood, never rescanning what a checkpoint covers, and complete', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 6, 10);
    const dataKeys = new Set((await stack.items()).map(keyOf));

    // Every Scan page on the wire, by phase and segment.
    type Page = { segment: number; start: string | undefined; keys: string[]; last: string | undefined };
    const pages: Record<'crash' | 'resume', Page[]> = { crash: [], resume: [] };
    let phase: 'crash' | 'resume' = 'crash';
    stack.engine.faults.inject('Scan', async (request) => {
      const response = await request.forward();
      const body = response.body as any;
      pages[phase].push({
        segment: request.body.Segment,
        start: request.body.ExclusiveStartKey ? keyOf(unmarshall(request.body.ExclusiveStartKey)) : undefined,
        keys: (body.Items ?? []).map((item: any) => keyOf(unmarshall(item))),
        last: body.LastEvaluatedKey ? keyOf(unmarshall(body.LastEvaluatedKey)) : undefined,
      });
      return response;
    });
    // The crash: after 30 line rewrites, the process can write nothing more.
    let rewrites = 0;
    let crashed = false;
    const crash = (request: { operation: string; body: any }) => {
      if (!crashed && request.operation === 'UpdateItem' && String(request.body.Key.PK.S).startsWith('ORDER#') && ++rewrites > 30) crashed = true;
      return crashed ? errorResponse('ValidationException', 'injected crash: the migration process died') : undefined;
    };
    const removeUpdates = stack.engine.faults.inject('UpdateItem', crash);
    const removeTransactions = stack.engine.faults.inject('TransactWriteItems', crash);

    await expect(runMigration(stack.table, m0001, { segments: 4, pageSize: 10 })).rejects.toThrow(/injected crash/);
    removeUpdates();
    removeTransactions();
    const { applied, checkpoints } = await migrationState(stack.table, m0001.name);
    expect(applied).toBeUndefined();
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.some((c) => !c.done)).toBe(true);
    expect(checkpoints.every((c) => c.segments === 4)).toBe(true);
    expect((await migrationStatuses(stack.table, migrations))[0]).toMatchObject({ status: 'in progress' });

    phase = 'resume';
    const report = await runMigration(stack.table, m0001, { segments: 2 /* ignored: the checkpoints' 4 segments win */, pageSize: 10 });
    expect(report).toMatchObject({ outcome: 'applied', resumed: true, segments: 4 });

    // Each segment restarted exactly at its checkpoint (a done segment not at all)…
    const covered = new Set<string>();
    for (let segment = 0; segment < 4; segment++) {
      const checkpoint = checkpoints.find((c) => c.segment === segment);
      const resumedPages = pages.resume.filter((p) => p.segment === segment);
      if (checkpoint?.done) expect(resumedPages).toEqual([]);
      else expect(resumedPages[0]?.start).toBe(checkpoint?.next ? keyOf(checkpoint.next as Item) : undefined);
      // …and what the crashed run had settled up to the checkpoint is covered.
      if (!checkpoint) continue;
      for (const page of pages.crash.filter((p) => p.segment === segment)) {
        page.keys.forEach((key) => covered.add(key));
        if (!checkpoint.done && page.last === keyOf(checkpoint.next as Item)) break;
      }
    }
    const rescanned = pages.resume.flatMap((p) => p.keys);
    expect(rescanned.filter((key) => covered.has(key))).toEqual([]);
    expect([...dataKeys].filter((key) => !covered.has(key) && !rescanned.includes(key))).toEqual([]);
    expect(rescanned.length).toBeLessThan(dataKeys.size);
    expect(report.run.scanned).toBe(rescanned.length);

    // The final state is complete: every line indexed, the checkpoints gone, the record kept.
    const items = await stack.items();
    for (const { order, line } of linesOf(fixtures)) {
      expect(items.find((item) => keyOf(item) === keyOf(orderKeys.line(order.id, line.lineNo)))).toMatchObject(skuKeys.ofLine(order, line));
    }
    expect(items.filter((item) => String(item.PK).startsWith('MIGRATION#')).map((item) => item.SK)).toEqual(['APPLIED']);
  });

  it('let an aborted run stop at a page boundary with its checkpoints written, and resume from them', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 4, 10);
    const controller = new AbortController();
    let pages = 0;
    const stopped = await runMigration(stack.table, m0001, { segments: 2, pageSize: 10, signal: controller.signal, onPage: () => { if (++pages === 3) controller.abort(); } });
    expect(stopped.outcome).toBe('interrupted');
    const { checkpoints, applied } = await migrationState(stack.table, m0001.name);
    expect(applied).toBeUndefined();
    // Every settled page is checkpointed, and nothing beyond: the checkpoints account for exactly what the run reports.
    expect(checkpoints.reduce((sum, c) => sum + c.pages, 0)).toBe(pages);
    expect(checkpoints.reduce((sum, c) => sum + c.counts.updated, 0)).toBe(stopped.run.updated);

    stack.engine.wire.reset();
    const resumed = await runMigration(stack.table, m0001, { pageSize: 10 });
    expect(resumed).toMatchObject({ outcome: 'applied', resumed: true, segments: 2 });
    const firstScans = [0, 1].map((segment) => stack.engine.wire.requests().find((r) => r.operation === 'Scan' && r.body.Segment === segment));
    for (const checkpoint of checkpoints.filter((c) => !c.done)) {
      expect(unmarshall(firstScans[checkpoint.segment]!.body.ExclusiveStartKey)).toEqual(checkpoint.next);
    }
    expect(resumed.total.updated).toBe(linesOf(fixtures).length);
    expect(resumed.total.scanned).toBe(stopped.run.scanned + resumed.run.scanned);
  });

  it('keep the applied-migrations record in the table, written through the write guards, and list each migration', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 2, 5);
    expect((await migrationStatuses(stack.table, migrations))[0]).toEqual(
      { name: '0001-order-lines-by-sku', description: m0001.description, status: 'pending', applied: undefined, progress: undefined },
    );
    const report = await runMigration(stack.table, m0001, { now: () => '2026-09-20T08:00:00.000Z' });
    const record = (await stack.items()).find((item) => item.PK === migrationKeys.pk(m0001.name));
    const total = (await stack.items()).length - 1;
    expect(record).toEqual({
      PK: 'MIGRATION#0001-order-lines-by-sku', SK: 'APPLIED', type: 'MIGRATION', name: '0001-order-lines-by-sku',
      appliedAt: '2026-09-20T08:00:00.000Z', lastRunAt: '2026-09-20T08:00:00.000Z', runs: 1, segments: 4,
      scanned: total, selected: linesOf(fixtures).length, updated: linesOf(fixtures).length, skipped: 0, unresolved: 0,
    });
    expect(entityOf(record!)?.name).toBe('Migration record');
    expect(entityOf({ ...migrationKeys.checkpoint(m0001.name, 3) })?.name).toBe('Migration checkpoint');
    expect(report.applied).toMatchObject({ appliedAt: '2026-09-20T08:00:00.000Z', runs: 1 });
    expect(await migrationStatuses(stack.table, migrations)).toMatchObject([
      { name: '0001-order-lines-by-sku', status: 'applied', applied: { appliedAt: '2026-09-20T08:00:00.000Z' } },
      { name: '0002-status-index-shards', status: 'pending' },
    ]);
  });
});

describe('migration rate limits', () => {
  it('ask the limiter for one token per scanned item, before the page is rewritten', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 3, 8);
    const events: string[] = [];
    const taken: number[] = [];
    const limiter: Limiter = { take: async (n) => { taken.push(n); events.push(`take ${n}`); } };
    const stop = stack.engine.wire.onRequest((request) => {
      if (request.operation === 'UpdateItem' && String(request.body.Key.PK.S).startsWith('ORDER#')) events.push('rewrite');
    });
    const report = await runMigration(stack.table, m0001, { segments: 1, pageSize: 10, limiter });
    stop();
    expect(taken.reduce((a, b) => a + b, 0)).toBe(report.run.scanned);
    expect(taken).toHaveLength(report.scanRequests);
    expect(events[0]).toMatch(/^take/);
    // With one segment, pages follow each other: a page's rewrites never outnumber the tokens taken for it.
    let budget = 0;
    for (const event of events) {
      if (event === 'rewrite') expect(--budget).toBeGreaterThanOrEqual(0);
      else budget = Number(event.split(' ')[1]);
    }
  });

  it('hold the whole run to the rate, counted on a virtual clock', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 3, 8);
    const clock = virtualClock();
    const limiter = new RateLimiter(40, { clock });
    const report = await runMigration(stack.table, m0001, { segments: 3, pageSize: 10, limiter });
    // 40 items a second, 40 saved up at the start: the last token was granted no earlier than this.
    expect(clock.now()).toBeGreaterThanOrEqual(((report.run.scanned - 40) / 40) * 1000 - 1);
    expect(clock.now()).toBeLessThanOrEqual(((report.run.scanned - 40) / 40) * 1000 + 1000);
  });
});

/** A clock whose sleeps return at once and move its time forward by what they waited. */
function virtualClock(): Clock {
  let time = 0;
  return {
    now: () => time,
    async sleep(ms) {
      time += ms;
    },
  };
}

describe('the rate limiter (token bucket, pure)', () => {
  /** Takes `requests` one after another and records when each was granted, on a virtual clock. */
  async function grantTimes(limiter: RateLimiter, clock: Clock, requests: number[]) {
    const granted: Array<{ at: number; total: number }> = [];
    let total = 0;
    for (const n of requests) {
      await limiter.take(n);
      total += n;
      granted.push({ at: clock.now(), total });
    }
    return granted;
  }

  it('grants at most burst + rate × elapsed tokens at any moment', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter(100, { burst: 50, clock });
    const granted = await grantTimes(limiter, clock, Array(1000).fill(1));
    for (const { at, total } of granted) expect(total).toBeLessThanOrEqual(50 + (100 * at) / 1000 + 1e-9);
    expect(granted.at(-1)!.at).toBeCloseTo(((1000 - 50) / 100) * 1000, 6);
  });

  it('grants a request larger than the burst once its debt is paid, and holds the long-run rate', async () => {
    const clock = virtualClock();
    const limiter = new RateLimiter(10, { clock });
    const granted = await grantTimes(limiter, clock, [100, 100, 5]);
    expect(granted.map((g) => g.at)).toEqual([9000, 19000, 19500]);
  });

  it('refills while idle, never beyond the burst', async () => {
    let time = 0;
    const slept: number[] = [];
    const clock: Clock = { now: () => time, sleep: async (ms) => { slept.push(ms); time += ms; } };
    const limiter = new RateLimiter(10, { burst: 20, clock });
    await limiter.take(20);
    time += 60_000; // a minute idle refills 20 tokens, not 600
    await limiter.take(20);
    expect(slept).toEqual([]);
    await limiter.take(10);
    expect(slept).toEqual([1000]);
  });

  it('shares the rate between concurrent takers (segments)', async () => {
    let time = 0;
    const wakeUps: number[] = [];
    const clock: Clock = { now: () => time, sleep: async (ms) => { wakeUps.push(time + ms); } };
    const limiter = new RateLimiter(10, { burst: 10, clock });
    await Promise.all([limiter.take(10), limiter.take(10), limiter.take(10), limiter.take(10)]);
    // The first is covered by the burst; the others wait 1 s, 2 s and 3 s: 10 tokens a second.
    expect(wakeUps).toEqual([1000, 2000, 3000]);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => new RateLimiter(0)).toThrow();
    expect(() => new RateLimiter(Number.NaN)).toThrow();
  });
});

describe('the migration registry', () => {
  it('finds a migration by name or number, in file order, with names unique', () => {
    expect(findMigration('0001-order-lines-by-sku')).toBe(m0001);
    expect(findMigration('0001')).toBe(m0001);
    expect(findMigration('0002')?.name).toBe('0002-status-index-shards');
    expect(findMigration('0003')).toBeUndefined();
    const names = migrations.map((m) => m.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
  });
});

// ---- the command line ------------------------------------------------------------------------------

describe('npm run migrate (the command line)', () => {
  const exec = promisify(execFile);
  const env = (endpoint: string) => ({ ...process.env, DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: 'app', NODE_ENV: 'development', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  /** The script itself, as `npm run migrate` starts it (without npm's own start-up). */
  async function migrate(endpoint: string, ...args: string[]) {
    return (await exec(process.execPath, ['--import', 'tsx', 'src/cli/migrate.ts', ...args], { cwd: root, env: env(endpoint), timeout: 60_000 })).stdout;
  }
  /** Through npm, once: the `migrate` script of package.json. */
  async function npmRunMigrate(endpoint: string, ...args: string[]) {
    return (await exec('npm', ['run', '--silent', 'migrate', '--', ...args], { cwd: root, env: env(endpoint), timeout: 60_000 })).stdout;
  }

  it('lists, dry-runs and applies a migration against DYNAMODB_ENDPOINT, from a child process', { timeout: 90_000 }, async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 2, 6);
    const lines = linesOf(fixtures).length;

    expect(JSON.parse(await migrate(stack.engine.endpoint, '--list', '--json'))).toMatchObject([
      { name: '0001-order-lines-by-sku', status: 'pending' },
      { name: '0002-status-index-shards', status: 'pending' },
    ]);
    const before = sortItems(await stack.items());
    const dry = JSON.parse(await migrate(stack.engine.endpoint, '0001', '--dry-run', '--json'));
    expect(dry).toMatchObject({ outcome: 'dry run', run: { scanned: before.length, selected: lines, updated: 0 } });
    expect(sortItems(await stack.items())).toEqual(before);

    const run = JSON.parse(await npmRunMigrate(stack.engine.endpoint, '0001-order-lines-by-sku', '--segments', '2', '--rate', '100000', '--page-size', '7', '--json'));
    expect(run).toMatchObject({ outcome: 'applied', segments: 2, total: { selected: lines, updated: lines } });
    expect(await migrate(stack.engine.endpoint, '--list')).toMatch(/0001-order-lines-by-sku {2}applied 20\d\d-/);
    const response = await stack.gql(BY_SKU, { sku: 'BOOK-001', first: 20 });
    expect({ data: response.data, errors: response.errors }).toEqual({ data: bySkuData(fixtures, 'BOOK-001'), errors: undefined });
  });
});
