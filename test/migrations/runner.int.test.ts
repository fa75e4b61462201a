/**
 * The migration runner (src/ops/migrations), driven with migration 0001 on data stored the old way:
 * dry runs that write nothing, idempotent reruns that never clobber concurrent writes, checkpoints
 * that let a crashed or aborted run resume, and the applied-migrations record kept in the table.
 * Each test starts its own stack, so counts are exact.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { errorResponse } from '@single-table/engine';
import type { Item } from '../../src/dynamo/table';
import { migrations, migrationStatuses, runMigration } from '../../src/ops/migrations';
import { migration as m0001 } from '../../src/ops/migrations/0001-order-lines-by-sku';
import { entityOf, lineToItem, migrationKeys, migrationState, newId, orderKeys, skuKeys } from '../../src/model';
import { dataOf } from '../support/graphql';
import { createCustomer, isData, keyOf, linesOf, loadLegacy, placeOrder, sortItems, useFreshStacks, WRITES } from '../support/migrations';

const freshStack = useFreshStacks();

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
    const rewrites = stack.engine.wire
      .requests()
      .filter((r) => r.operation === 'UpdateItem' && String(r.body.Key.PK.S).startsWith('ORDER#'));
    expect(rewrites).toEqual([]);
    const after = sortItems(await stack.items());
    expect(after.filter(isData)).toEqual(applied.filter(isData));
    expect(after.find((item) => item.SK === 'APPLIED')).toMatchObject({
      runs: 2,
      appliedAt: applied.find((item) => item.SK === 'APPLIED')!.appliedAt,
    });
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
    await stack.settled(); // ordersBySku reads GSI1, eventually consistent: wait for the rewrite to show
    expect(dataOf(await stack.gql(`{ ordersBySku(sku: "CHANGED-9") { nodes { id } } }`)).ordersBySku.nodes).toEqual([
      { id: changed!.order.id },
    ]);
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
      if (!crashed && request.operation === 'UpdateItem' && String(request.body.Key.PK.S).startsWith('ORDER#') && ++rewrites > 30)
        crashed = true;
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
    const stopped = await runMigration(stack.table, m0001, {
      segments: 2,
      pageSize: 10,
      signal: controller.signal,
      onPage: () => {
        if (++pages === 3) controller.abort();
      },
    });
    expect(stopped.outcome).toBe('interrupted');
    const { checkpoints, applied } = await migrationState(stack.table, m0001.name);
    expect(applied).toBeUndefined();
    // Every settled page is checkpointed, and nothing beyond: the checkpoints account for exactly what the run reports.
    expect(checkpoints.reduce((sum, c) => sum + c.pages, 0)).toBe(pages);
    expect(checkpoints.reduce((sum, c) => sum + c.counts.updated, 0)).toBe(stopped.run.updated);

    stack.engine.wire.reset();
    const resumed = await runMigration(stack.table, m0001, { pageSize: 10 });
    expect(resumed).toMatchObject({ outcome: 'applied', resumed: true, segments: 2 });
    const firstScans = [0, 1].map((segment) =>
      stack.engine.wire.requests().find((r) => r.operation === 'Scan' && r.body.Segment === segment),
    );
    for (const checkpoint of checkpoints.filter((c) => !c.done)) {
      expect(unmarshall(firstScans[checkpoint.segment]!.body.ExclusiveStartKey)).toEqual(checkpoint.next);
    }
    expect(resumed.total.updated).toBe(linesOf(fixtures).length);
    expect(resumed.total.scanned).toBe(stopped.run.scanned + resumed.run.scanned);
  });

  it('keep the applied-migrations record in the table, written through the write guards, and list each migration', async () => {
    const stack = await freshStack();
    const fixtures = await loadLegacy(stack, 2, 5);
    expect((await migrationStatuses(stack.table, migrations))[0]).toEqual({
      name: '0001-order-lines-by-sku',
      description: m0001.description,
      status: 'pending',
      applied: undefined,
      progress: undefined,
    });
    const report = await runMigration(stack.table, m0001, { now: () => '2026-09-20T08:00:00.000Z' });
    const record = (await stack.items()).find((item) => item.PK === migrationKeys.pk(m0001.name));
    const total = (await stack.items()).length - 1;
    expect(record).toEqual({
      PK: 'MIGRATION#0001-order-lines-by-sku',
      SK: 'APPLIED',
      type: 'MIGRATION',
      name: '0001-order-lines-by-sku',
      appliedAt: '2026-09-20T08:00:00.000Z',
      lastRunAt: '2026-09-20T08:00:00.000Z',
      runs: 1,
      segments: 4,
      scanned: total,
      selected: linesOf(fixtures).length,
      updated: linesOf(fixtures).length,
      skipped: 0,
      unresolved: 0,
    });
    expect(entityOf(record!)?.name).toBe('Migration record');
    expect(entityOf({ ...migrationKeys.checkpoint(m0001.name, 3) })?.name).toBe('Migration checkpoint');
    expect(report.applied).toMatchObject({ appliedAt: '2026-09-20T08:00:00.000Z', runs: 1 });
    expect(await migrationStatuses(stack.table, migrations)).toMatchObject([
      { name: '0001-order-lines-by-sku', status: 'applied', applied: { appliedAt: '2026-09-20T08:00:00.000Z' } },
      { name: '0002-status-index-shards', status: 'pending' },
      { name: '0003-customer-stats', status: 'pending' },
    ]);
  });
});
