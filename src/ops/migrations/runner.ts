/**
 * Runs one migration over the whole table.
 *
 * - Scan: `Table.parallelScan`, `segments` workers (default 4), `pageSize` items a page (default 100),
 *   with ConsistentRead (twice the read capacity of an eventual Scan, once per run: the price of
 *   seeing every item written before the run).
 *   Each worker hands a page over and asks for the next only once the page is settled.
 * - Rate: before a page is rewritten the limiter is asked for one token per scanned item, so the
 *   run reads, and writes, at most `--rate` items a second (rate-limit.ts).
 * - Rewrite: one conditional UpdateItem per selected item (`attribute_exists(PK) AND <the
 *   migration's condition>`), a few at a time; a failed condition counts as `skipped`: the item
 *   changed, or was already rewritten, after it was scanned, and is left as it is.
 * - Checkpoint: once every rewrite of a page has settled, the segment's `LastEvaluatedKey` (or
 *   `done`) and counts go to `MIGRATION#<name>` / `CHECKPOINT#<segment>`. A crash loses at most the
 *   pages in flight; the next run starts every segment from its checkpoint, and the pages it
 *   repeats are harmless, since rewritten items are no longer selected and the conditions hold.
 * - Applied: when every segment is done, `MIGRATION#<name>` / `APPLIED` is written and the
 *   checkpoints deleted, in one transaction. A second run finds it and does nothing; `force`
 *   scans again (e.g. after old code wrote more items of the old shape) and changes only what
 *   still needs it.
 * - Dry run: the same scan and decisions (its reads included), no write at all: no rewrite, no
 *   checkpoint, no record. It always scans the whole table.
 * - A failure stops every segment at its next page and rethrows once all have stopped; an abort
 *   (`signal`) stops them the same way and reports `interrupted`. Either way the checkpoints
 *   written so far stand.
 */
import type { Item, Table } from '../../dynamo/table';
import {
  addCounts,
  isMigrationName,
  MAX_SEGMENTS,
  migrationState,
  recordApplied,
  saveCheckpoint,
  zeroCounts,
  type AppliedRecord,
  type Checkpoint,
  type MigrationCounts,
} from '../../model/migration';
import { writeUpdate } from '../../model/guards';
import { isConditionalCheckFailed } from '../../dynamo/errors';
import { setFields } from '../../dynamo/update-expression';
import type { Migration, Rewrite } from './migration';
import { unlimited, type Limiter } from './rate-limit';

export interface RunOptions {
  dryRun?: boolean;
  /** Run a migration already applied again (it changes only what still needs it). */
  force?: boolean;
  /** Scan segments of a fresh run (1..64, default 4); a resumed run keeps the checkpoints' own. */
  segments?: number;
  /** Items a Scan page (default 100). */
  pageSize?: number;
  limiter?: Limiter;
  /** Conditional writes in flight at once per segment (default 8). */
  writeConcurrency?: number;
  /** Stops the run after the pages in flight; their checkpoints are written. */
  signal?: AbortSignal;
  /** Called after each settled page, for a progress bar. */
  onPage?(event: { segment: number; page: MigrationCounts; run: MigrationCounts }): void;
  /** Called once before scanning, with what the checkpoints already account for. */
  onStart?(event: { resumed: boolean; segments: number; done: MigrationCounts }): void;
  now?: () => string;
}

export interface RunReport {
  name: string;
  outcome: 'applied' | 'already applied' | 'dry run' | 'interrupted';
  /** Whether this run started from checkpoints of an earlier one. */
  resumed: boolean;
  segments: number;
  /** What this invocation did. */
  run: MigrationCounts;
  /** Since the run began, including the runs it resumed (what the applied record keeps). */
  total: MigrationCounts;
  /** Scan requests this invocation sent. */
  scanRequests: number;
  applied: AppliedRecord | undefined;
}

const DEFAULT_SEGMENTS = 4;
const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_WRITE_CONCURRENCY = 8;

/** Thrown inside a worker to stop it at a page boundary; never escapes the runner. */
class Stop extends Error {}

export async function runMigration(table: Table, migration: Migration, options: RunOptions = {}): Promise<RunReport> {
  if (!isMigrationName(migration.name)) throw new Error(`a migration is named NNNN-words-with-dashes, got ${migration.name}`);
  const dryRun = options.dryRun ?? false;
  const pageSize = checkInteger(options.pageSize ?? DEFAULT_PAGE_SIZE, 'pageSize', 1, 1000);
  const writeConcurrency = checkInteger(options.writeConcurrency ?? DEFAULT_WRITE_CONCURRENCY, 'writeConcurrency', 1, 100);
  const limiter = options.limiter ?? unlimited;
  const now = options.now ?? (() => new Date().toISOString());

  const state = await migrationState(table, migration.name);
  if (state.applied && !options.force && !dryRun) {
    return {
      name: migration.name,
      outcome: 'already applied',
      resumed: false,
      segments: state.applied.segments,
      run: zeroCounts(),
      total: state.applied.counts,
      scanRequests: 0,
      applied: state.applied,
    };
  }

  // Where each segment starts: from its checkpoint (a real run resumes), or from the beginning.
  const checkpoints = dryRun ? [] : state.checkpoints;
  const resumed = checkpoints.length > 0;
  const segments = resumed ? segmentationOf(checkpoints) : checkInteger(options.segments ?? DEFAULT_SEGMENTS, 'segments', 1, MAX_SEGMENTS);
  const positions = Array.from({ length: segments }, (_, segment) => {
    const checkpoint = checkpoints.find((c) => c.segment === segment);
    return {
      start: checkpoint ? (checkpoint.done ? null : checkpoint.next) : undefined,
      pages: checkpoint?.pages ?? 0,
      counts: checkpoint?.counts ?? zeroCounts(),
    };
  });
  const before = positions.reduce((sum, position) => addCounts(sum, position.counts), zeroCounts());
  options.onStart?.({ resumed, segments, done: before });

  let run = zeroCounts();
  let failure: unknown;
  const stopping = () => failure !== undefined || options.signal?.aborted === true;

  const settlePage = async (segment: number, items: Item[], next: Record<string, unknown> | undefined) => {
    if (stopping()) throw new Stop();
    await limiter.take(items.length);
    if (stopping()) throw new Stop();
    const page = await rewritePage(table, migration, items, { dryRun, writeConcurrency, stopping });
    const position = positions[segment]!;
    position.pages += 1;
    position.counts = addCounts(position.counts, page);
    run = addCounts(run, page);
    if (!dryRun) {
      await saveCheckpoint(
        table,
        migration.name,
        { segment, segments, next, done: next === undefined, pages: position.pages, counts: position.counts },
        now(),
      );
    }
    options.onPage?.({ segment, page, run });
  };

  // One parallel scan per segment, so the runner can wait for every worker to stop before it
  // returns (a failing segment must not leave others writing behind its back).
  const outcomes = await Promise.allSettled(
    positions.map(async (position, segment) => {
      if (position.start === null) return 0;
      const startKeys = Array.from({ length: segments }, (_, s) => (s === segment ? position.start : null));
      try {
        const totals = await table.parallelScan({
          segments,
          startKeys,
          pageSize,
          // Strongly consistent: an eventual Scan may miss an item written just before the run, which would stay in the old shape.
          consistentRead: true,
          onPage: ({ segment: s, items, next }) => settlePage(s, items, next),
        });
        return totals.requests;
      } catch (error) {
        if (!(error instanceof Stop)) failure ??= error;
        throw error;
      }
    }),
  );
  const scanRequests = outcomes.reduce((sum, outcome) => sum + (outcome.status === 'fulfilled' ? outcome.value : 0), 0);
  if (failure !== undefined) {
    const message = `migration ${migration.name} failed: ${(failure as Error).message ?? String(failure)}${dryRun ? '' : '; the pages settled so far are checkpointed, run it again to resume'}`;
    throw Object.assign(new Error(message, { cause: failure }), { report: { run } });
  }

  const total = addCounts(before, run);
  const report = { name: migration.name, resumed, segments, run, total, scanRequests };
  const complete = outcomes.every((outcome) => outcome.status === 'fulfilled');
  if (!complete) return { ...report, outcome: 'interrupted', applied: state.applied };
  if (dryRun) return { ...report, outcome: 'dry run', applied: state.applied };
  await recordApplied(table, migration.name, { segments, counts: total, checkpoints: segments }, now());
  const applied = (await migrationState(table, migration.name)).applied;
  return { ...report, outcome: 'applied', applied };
}

/** Selects, prepares and rewrites one page's items; returns what happened to them. */
async function rewritePage(
  table: Table,
  migration: Migration,
  items: readonly Item[],
  options: { dryRun: boolean; writeConcurrency: number; stopping: () => boolean },
): Promise<MigrationCounts> {
  const { counts, rewrites } = await decidePage(table, migration, items);
  if (options.dryRun || rewrites.length === 0) return counts;

  let failed: unknown;
  let next = 0;
  const worker = async () => {
    while (next < rewrites.length && failed === undefined) {
      if (options.stopping()) throw new Stop();
      const rewrite = rewrites[next++]!;
      try {
        if (await applyRewrite(table, rewrite)) counts.updated += 1;
        else counts.skipped += 1;
      } catch (error) {
        failed ??= error;
      }
    }
  };
  // Every write of the page settles before the page fails or is checkpointed.
  const workers = await Promise.allSettled(Array.from({ length: Math.min(options.writeConcurrency, rewrites.length) }, worker));
  if (failed !== undefined) throw failed;
  const stopped = workers.find((w) => w.status === 'rejected');
  if (stopped) throw (stopped as PromiseRejectedResult).reason;
  return counts;
}

/**
 * What a migration decides for one scanned page, writing nothing: the items it selects, the
 * rewrites of those it can rewrite (`prepare` reads what they need), and the counts. A real run, a
 * dry run and the `--list` probe (probe.ts) all decide through it.
 */
export async function decidePage(
  table: Table,
  migration: Migration,
  items: readonly Item[],
): Promise<{ counts: MigrationCounts; rewrites: Rewrite[] }> {
  const counts = { ...zeroCounts(), scanned: items.length };
  const selected = items.filter((item) => migration.selects(item, table));
  counts.selected = selected.length;
  const rewrites: Rewrite[] = [];
  if (selected.length === 0) return { counts, rewrites };
  const context = await migration.prepare(table, selected);
  for (const item of selected) {
    const decision = migration.rewrite(item, context);
    if ('unresolved' in decision) counts.unresolved += 1;
    else rewrites.push(decision.rewrite);
  }
  return { counts, rewrites };
}

/** One conditional UpdateItem; false when its condition failed (the item changed since the scan). */
async function applyRewrite(table: Table, rewrite: Rewrite): Promise<boolean> {
  const set = setFields(rewrite.set, { indexed: 'm' });
  try {
    await writeUpdate(table, {
      Key: rewrite.key,
      UpdateExpression: set.expression,
      ConditionExpression: `attribute_exists(PK) AND (${rewrite.condition.expression})`,
      ExpressionAttributeNames: { ...set.names, ...rewrite.condition.names },
      ExpressionAttributeValues: { ...set.values, ...rewrite.condition.values },
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** The segmentation the checkpoints were written with; they must agree. */
function segmentationOf(checkpoints: readonly Checkpoint[]): number {
  const counts = new Set(checkpoints.map((c) => c.segments));
  const [segments] = counts;
  if (counts.size !== 1 || segments === undefined || !Number.isInteger(segments) || segments < 1 || segments > MAX_SEGMENTS) {
    throw new Error(`the checkpoints disagree on the number of segments (${[...counts].join(', ')})`);
  }
  return segments;
}

function checkInteger(value: number, name: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer ${min}..${max}, got ${value}`);
  return value;
}
