/**
 * `npm run migrate -- --list` tells "pending" (its dry run would rewrite items) from "not needed"
 * (its dry run selects nothing to rewrite), by running each migration's own dry run
 * (`migrationStatuses(…, { probe: true })`, `migrationNeeds`: one scan for them all), so the list
 * and `--dry-run` cannot disagree. Real engine, real data written the current way or the old way.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/dynamo/table';
import { migrations, migrationStatuses, runMigration, type MigrationStatus } from '../../src/ops/migrations';
import { orderSummaryEntity } from '../../src/model';
import { createCustomer, loadLegacy, placeOrder, useFreshStacks, WRITES } from '../support/migrations';
import type { Stack } from '../support/stack';

const freshStack = useFreshStacks();
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Orders placed through the API: every item already has the keys both migrations add. */
async function currentData(stack: Stack): Promise<void> {
  const ana = await createCustomer(stack, 'Ana');
  await placeOrder(stack, ana.id, '2026-03-01T00:00:00.000Z', ['MUG-002', 'PEN-004']);
  await placeOrder(stack, ana.id, '2026-04-01T00:00:00.000Z', ['BOOK-001']);
  await stack.settled(); // scans read eventually, as DynamoDB's do
}

/** Each migration's status must be what its own full dry run says. */
async function expectAgreesWithDryRuns(stack: Stack, statuses: readonly MigrationStatus[]): Promise<void> {
  for (const [i, migration] of migrations.entries()) {
    const dry = await runMigration(stack.table, migration, { dryRun: true });
    expect({ name: statuses[i]!.name, status: statuses[i]!.status }).toEqual({
      name: migration.name,
      status: dry.run.selected - dry.run.unresolved > 0 ? 'pending' : 'not needed',
    });
  }
}

describe('migrate --list: pending or not needed', () => {
  it('calls a migration whose dry run selects nothing "not needed", after a read-only scan of the whole table', async () => {
    const stack = await freshStack();
    await currentData(stack);
    const items = (await stack.items()).length;

    stack.engine.wire.reset();
    const statuses = await migrationStatuses(stack.table, migrations, { probe: true });
    expect(stack.engine.wire.requests().filter((request) => WRITES.includes(request.operation))).toEqual([]);
    const scans = stack.engine.wire.requests().filter((request) => request.operation === 'Scan').length;
    expect(statuses.map(({ name, status, need }) => ({ name, status, need }))).toEqual(
      migrations.map((migration) => ({
        name: migration.name,
        status: 'not needed',
        need: { wouldUpdate: 0, complete: true, counts: { scanned: items, selected: 0, updated: 0, skipped: 0, unresolved: 0 } },
      })),
    );
    await expectAgreesWithDryRuns(stack, statuses);
    // ONE scan of the table for the three probes: as many Scan requests as one migration's dry run sends.
    stack.engine.wire.reset();
    const oneDryRun = await runMigration(stack.table, migrations[0]!, { dryRun: true });
    expect(scans).toBe(oneDryRun.scanRequests);
    expect(stack.engine.wire.requests().filter((request) => request.operation === 'Scan')).toHaveLength(scans);
  });

  it('calls a migration "pending" only when its dry run would rewrite items, and each one for its own items', async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 2, 6); // order lines without GSI1 keys: 0001's items; summaries already sharded
    await stack.settled();
    let statuses = await migrationStatuses(stack.table, migrations, { probe: true });
    expect(statuses.map(({ name, status }) => ({ name, status }))).toEqual([
      { name: '0001-order-lines-by-sku', status: 'pending' },
      { name: '0002-status-index-shards', status: 'not needed' },
      { name: '0003-customer-stats', status: 'pending' }, // legacy profiles, without a stats baseline
    ]);
    expect(statuses[0]!.need!.wouldUpdate).toBeGreaterThan(0);
    await expectAgreesWithDryRuns(stack, statuses);

    // One summary written before the status index was sharded: now 0002 has an item to rewrite.
    const summary = (await stack.items()).find((item: Item) => orderSummaryEntity.matches(item))!;
    await stack.load([{ ...summary, GSI1PK: `STATUS#${String(summary.status)}` }]);
    await stack.settled();
    statuses = await migrationStatuses(stack.table, migrations, { probe: true });
    expect(statuses[1]).toMatchObject({ status: 'pending', need: { wouldUpdate: 1 } });
    await expectAgreesWithDryRuns(stack, statuses);

    // Applied, it is listed as applied (no dry run); its rewrite done, the other stays as it was.
    await runMigration(stack.table, migrations[1]!);
    await stack.settled();
    statuses = await migrationStatuses(stack.table, migrations, { probe: true });
    expect(statuses.map(({ status, need }) => ({ status, probed: need !== undefined }))).toEqual([
      { status: 'pending', probed: true },
      { status: 'applied', probed: false },
      { status: 'pending', probed: true },
    ]);
  });

  it('prints both states from the command line (npm run migrate -- --list)', { timeout: 60_000 }, async () => {
    const stack = await freshStack();
    await loadLegacy(stack, 2, 6);
    await stack.settled();
    const items = (await stack.items()).length;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/entry/cli/migrate.ts', '--list'], {
      cwd: root,
      env: { ...process.env, DYNAMODB_ENDPOINT: stack.engine.endpoint, TABLE_NAME: 'app', NODE_ENV: 'development' },
      timeout: 45_000,
    });
    expect(stderr).toBe('');
    const lines = stdout.split('\n').filter((line) => /^ {2}\d{4}-/.test(line));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^ {2}0001-order-lines-by-sku {2}pending: its dry run (would rewrite \d+ of \d+ items|found items to rewrite in the first \d+ scanned \(--dry-run counts them all\))$/,
    );
    expect(lines[1]).toBe(`  0002-status-index-shards  not needed: its dry run selects nothing to rewrite among ${items} items`);
    expect(lines[2]).toMatch(/^ {2}0003-customer-stats {2}pending: its dry run /);
  });
});
