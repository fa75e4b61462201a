/**
 * Every declared access pattern reads at most its declared bound, on adversarial data.
 *
 * Each pattern's bound is a function of the pattern's own arguments, the table aside (computed from
 * the Limits of the requests it builds, src/model/access-pattern.ts), so the number
 * docs/access-patterns.md states is the number checked here: a pattern is run on data built to
 * make it read as much as it can (customers at the 10-address cap, 2,000 orders in one status
 * with the newest 300 on one shard, orders repeating one SKU on all 96 lines, orders alternating
 * 96 lines and 1, 96-line orders, a full catalog page, a migration with every checkpoint), the
 * items it reads are counted on the table it is given, and measured ≤ bound. A pattern that is
 * declared without a case here, or whose bound is not a finite number, fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { buildAdversarialCustomers, MIXED_SKU, REPEAT_SKU } from './support/adversarial';
import { customerItems, loadItems, loadProducts, type CustomerFixture } from './support/fixtures';
import type { Item, Table } from '../src/dynamo/table';
import { cancellationReasons } from '../src/dynamo/errors';
import {
  accessPatterns,
  catalogPrices,
  checkOrderWindow,
  customerByEmail,
  customerProfile,
  customerProfiles,
  idempotencyRecord,
  indexPartitionWindow,
  MAX_LINES,
  MAX_SEGMENTS,
  MAX_STORED_LINES,
  migrationAppliedEntity,
  migrationCheckpointEntity,
  migrationState,
  newId,
  orderDetail,
  orderHeader,
  orderHeaders,
  orderInputs,
  ordersBySku,
  ordersByStatus,
  partitionWindow,
  orderOwner,
  PARTITION_WINDOW_ROWS,
  placeOrder,
  planCollection,
  product,
  products,
  runPlannedQuery,
  SYSTEM_ACTOR,
  type AccessPattern,
  type CollectionNeed,
} from '../src/model';

const CATALOG_SIZE = 150;

/** A table that counts the items its reads return, and apart the ALL_OLD items of cancelled transactions. */
function countingTable(table: Table): { table: Table; read: () => number; allOld: () => number } {
  let items = 0;
  let old = 0;
  const counting = Object.create(table) as Table;
  const proto = Object.getPrototypeOf(table) as Table;
  counting.get = async (input) => {
    const item = await proto.get.call(counting, input);
    if (item) items += 1;
    return item;
  };
  counting.query = async (input) => {
    const out = await proto.query.call(counting, input);
    items += out.ScannedCount ?? out.Count ?? out.Items?.length ?? 0;
    return out;
  };
  counting.batchGet = async (keys, options) => {
    const found = await proto.batchGet.call(counting, keys, options);
    items += found.length;
    return found;
  };
  counting.transactWrite = async (actions) => {
    try {
      await proto.transactWrite.call(counting, actions);
    } catch (error) {
      old += (cancellationReasons(error) ?? []).filter((reason) => reason.Item !== undefined).length;
      throw error;
    }
  };
  return { table: counting, read: () => items, allOld: () => old };
}

interface Run {
  pattern: string;
  what: string;
  measured: number;
  bound: number;
}

describe('every access pattern reads at most its declared bound', () => {
  let stack: Stack;
  let big: CustomerFixture;
  let repeat: CustomerFixture;
  const runs: Run[] = [];
  const patterns = new Map(accessPatterns().map((p) => [p.name, p]));
  const migration = '0099-bounds-probe';

  function declared(name: string): AccessPattern {
    const found = patterns.get(name);
    if (!found) throw new Error(`no declared pattern ${name}`);
    return found;
  }

  /** Runs `body` on a counting table and records what it read against the bound of `args`. */
  async function measure(
    name: string,
    what: string,
    args: unknown[],
    body: (table: Table) => Promise<unknown>,
    count: 'reads' | 'allOld' = 'reads',
  ): Promise<void> {
    const { table, read, allOld } = countingTable(stack.table);
    await body(table);
    runs.push({ pattern: name, what, measured: count === 'reads' ? read() : allOld(), bound: declared(name).bound(...args) });
  }

  beforeAll(async () => {
    stack = await startStack();
    // test/support/adversarial.ts: the 2,000-order customer, 96-line orders repeating one SKU, mixed ones.
    const adversarial = buildAdversarialCustomers();
    ({ big, repeat } = adversarial);
    const { mixed } = adversarial;
    for (const fixture of [big, repeat, mixed]) await loadItems(stack, customerItems(fixture), 8);
    await loadProducts(
      stack,
      Array.from({ length: CATALOG_SIZE }, (_, i) => ({ sku: `P-${String(i).padStart(4, '0')}`, priceCents: 100 + i })),
    );
    // A migration run with every checkpoint written, and its applied record.
    const bookkeeping: Item[] = [
      {
        ...migrationAppliedEntity.itemKeys({ name: migration }),
        name: migration,
        appliedAt: '2026-01-01T00:00:00.000Z',
        runs: 1,
        segments: MAX_SEGMENTS,
      },
      ...Array.from({ length: MAX_SEGMENTS }, (_, segment) => ({
        ...migrationCheckpointEntity.itemKeys({ name: migration, segment }),
        migration,
        segment,
        segments: MAX_SEGMENTS,
        pages: 1,
        done: false,
        updatedAt: '2026-01-01T00:00:00.000Z',
      })),
    ];
    await loadItems(stack, bookkeeping);
  }, 180_000);

  afterAll(async () => {
    const worst = new Map<string, Run>();
    for (const run of runs)
      if (!worst.has(run.pattern) || run.measured / run.bound > worst.get(run.pattern)!.measured / worst.get(run.pattern)!.bound)
        worst.set(run.pattern, run);
    console.log(
      `access-pattern bounds, largest measured/bound per pattern: ${[...worst.values()].map((run) => `${run.pattern} ${run.measured}/${run.bound}`).join(', ')}`,
    );
    await stack?.close();
  });

  it('on adversarial data', async () => {
    const customerId = big.customer.id;
    await measure('customerProfile', 'a profile', [customerId], (table) => customerProfile(table, customerId));
    await measure('customerByEmail', 'an email', [big.customer.email], (table) => customerByEmail(table, big.customer.email));

    for (const first of [1, 7, 20, 100]) {
      let after: string | undefined;
      for (let page = 0; page < 4; page++) {
        const args = { first, after };
        let next: string | undefined;
        await measure('ordersByStatus', `PAID, first ${first}, page ${page}`, ['PAID', args], async (table) => {
          const result = await ordersByStatus(table, 'PAID', args);
          next = result.hasNextPage ? result.cursors.at(-1) : undefined;
        });
        if (!next) break;
        after = next;
      }
    }

    const longest = repeat.orders[0]!;
    await measure('orderDetail', `an order of ${longest.lines.length} lines`, [longest.id], (table) => orderDetail(table, longest.id));
    await measure('orderHeader', 'a header', [longest.id], (table) => orderHeader(table, longest.id));

    for (const sku of [REPEAT_SKU, MIXED_SKU]) {
      for (const first of [1, 10, 100]) {
        let after: string | undefined;
        for (let page = 0; page < 3; page++) {
          const args = { first, after };
          let next: string | undefined;
          await measure('ordersBySku', `${sku}, first ${first}, page ${page}`, [sku, args], async (table) => {
            const result = await ordersBySku(table, sku, args);
            next = result.hasNextPage ? result.cursors.at(-1) : undefined;
          });
          if (!next) break;
          after = next;
        }
      }
    }
    const headerIds = big.orders.slice(0, 100).map((order) => order.id);
    await measure('orderHeaders', '100 orders', [headerIds], (table) => orderHeaders(table, headerIds));

    await measure('product', 'a product', ['P-0001'], (table) => product(table, 'P-0001'));
    for (const first of [1, 100]) {
      await measure('products', `first ${first}`, [{ first }], (table) => products(table, { first }));
    }
    const skus = Array.from({ length: MAX_LINES }, (_, i) => `P-${String(i % 60).padStart(4, '0')}`);
    await measure('catalogPrices', `${skus.length} lines of 60 SKUs`, [skus], (table) => catalogPrices(table, skus));
    const distinct = Array.from({ length: MAX_LINES }, (_, i) => `P-${String(i).padStart(4, '0')}`);
    await measure('orderInputs', `${distinct.length} distinct SKUs and the profile`, [customerId, distinct], (table) =>
      orderInputs(table, customerId, distinct),
    );

    // placeOrder twice with one key: the replay's transaction is cancelled and returns the record
    // as ALL_OLD (its other reads are catalogPrices and orderDetail, bounded above).
    const order = { customerId, idempotencyKey: 'bounds-1', lines: [{ sku: 'P-0001', quantity: 1 }] };
    const placed = await placeOrder(stack.table, order, SYSTEM_ACTOR);
    await measure(
      'idempotencyClaim',
      'a replay',
      // The claim is built inside placeOrder; its bound is its action's, whatever the record.
      [...declared('idempotencyClaim').example!],
      async (table) => {
        expect((await placeOrder(table, order, SYSTEM_ACTOR)).id).toBe(placed.id);
      },
      'allOld',
    );
    await measure('idempotencyRecord', 'a live record', [customerId, 'bounds-1'], (table) =>
      idempotencyRecord(table, customerId, 'bounds-1'),
    );

    await measure('migrationState', `${MAX_SEGMENTS} checkpoints`, [migration], (table) => migrationState(table, migration));

    // The customer collection: every planned Query shape, on the 10-address, 2,000-order customer.
    const newest = (first: number) => checkOrderWindow(customerId, { first });
    const needs: Array<[string, CollectionNeed]> = [
      ['screen', { profile: true, addresses: true, windows: [newest(100)] }],
      ['profile and orders', { profile: true, addresses: false, windows: [newest(20)] }],
      ['head', { profile: true, addresses: true, windows: [] }],
      ['profile', { profile: true, addresses: false, windows: [] }],
      [
        'a month',
        {
          profile: false,
          addresses: false,
          windows: [checkOrderWindow(customerId, { first: 100, month: big.orders[0]!.placedAt.slice(0, 7) })],
        },
      ],
    ];
    for (const [what, need] of needs) {
      for (const query of planCollection(customerId, need)) {
        await measure(query.pattern, what, query.window ? [customerId, query.window.first] : [customerId], (table) =>
          runPlannedQuery(table, query),
        );
      }
    }
    const ids = [big.customer.id, repeat.customer.id, newId()];
    await measure('customerProfiles', '3 ids, one missing', [ids], (table) => customerProfiles(table, ids));

    // The development explorer's partition windows, on the 2,000-order partition and a hot status shard.
    const partition = `CUSTOMER#${customerId}`;
    await measure('partitionWindow', 'a whole partition', [{ pk: partition }], (table) => partitionWindow(table, { pk: partition }));
    const range = { pk: partition, from: 'ORDER#', to: 'ORDER#~' };
    await measure('partitionWindow', 'a range over every order', [range], (table) => partitionWindow(table, range));
    const orderPk = `ORDER#${big.orders[0]!.id}`;
    await measure('orderOwner', "an order's header", [orderPk], (table) => orderOwner(table, orderPk));
    for (const shard of [0, 1, 2, 3]) {
      const window = { pk: `STATUS#PAID#${shard}`, from: '0', to: '9' };
      await measure('indexPartitionWindow', `PAID shard ${shard}`, [window], (table) => indexPartitionWindow(table, window));
    }

    // Every declared pattern was run, and read at most its bound each time.
    const ran = new Set(runs.map((run) => run.pattern));
    expect(
      [...patterns.keys()].filter((name) => !ran.has(name)),
      'declared patterns without an adversarial run',
    ).toEqual([]);
    for (const run of runs) {
      expect(Number.isFinite(run.bound), `${run.pattern} (${run.what}) has a computable bound`).toBe(true);
      expect(run.measured, `${run.pattern} (${run.what}) read ${run.measured} items, declared bound ${run.bound}`).toBeLessThanOrEqual(
        run.bound,
      );
    }
    // The adversarial data does reach the bounds where they are exact.
    const reached = (name: string) => Math.max(...runs.filter((run) => run.pattern === name).map((run) => run.measured));
    expect(reached('orderDetail')).toBe(1 + MAX_STORED_LINES); // orders placed before the outbox hold 96 lines
    expect(reached('orderInputs')).toBe(MAX_LINES + 1);
    expect(reached('customerScreen')).toBe(1 + 10 + 100 + 1);
    expect(reached('migrationState')).toBe(1 + MAX_SEGMENTS);
    expect(reached('idempotencyClaim')).toBe(1);
    expect(reached('partitionWindow')).toBe(PARTITION_WINDOW_ROWS); // a whole 2,000-order partition's window is full
  }, 180_000);
});
