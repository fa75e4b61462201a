/**
 * The table doctor: a full parallel Scan that checks every item against the model's own entity
 * declarations (src/model, `entityOf`) and DescribeTable against the design, and reports sizes,
 * the largest items and item collections, where the partitions are most likely to run hot, and
 * every problem found. `npm run doctor` (src/entry/cli/doctor.ts) is its command line; its exit code
 * is non-zero when the report holds an error, so it can gate a deploy.
 *
 * Errors (the data or the table breaks the design):
 * - UNKNOWN_ENTITY: an item whose keys no declared entity claims;
 * - TTL_ON_NON_EXPIRING: the TTL attribute on an entity that must never expire (any but idempotency records and outbox events: DynamoDB would
 *   silently delete it one day);
 * - STALE_GSI1_KEYS: GSI1 keys that differ from what the item's own attributes call for
 *   (`gsi1Of`), e.g. a status key of an old shard count: the item sits under the wrong index key;
 * - MISSING_GSI1_KEYS: an entity that needs GSI1 keys (`requiresGsi1`) without both of them, so it
 *   is invisible to its index access pattern;
 * - ITEM_OVER_LIMIT: an item above DynamoDB's 400 KB (only possible in data that did not come
 *   from DynamoDB, e.g. an export or a migration's output: DynamoDB refuses to store one);
 * - LSI_PRESENT: a local secondary index (it can only be made with the table and never removed,
 *   and it caps every item collection at 10 GB); GSI1_MISSING: the index the model reads is absent.
 * Warnings (worth a look, never a failed gate):
 * - TTL_MISSING: an item of an entity that must expire (an idempotency record, an outbox event)
 *   without a numeric TTL attribute: DynamoDB would keep it forever (the write guards refuse to
 *   write one; this finds those written around them);
 * - ITEM_NEAR_LIMIT: an item above 300 KB; UNEXPECTED_GSI1_KEYS: GSI1 keys on an entity that
 *   declares none (it widens the index copy); TYPE_MISMATCH: `type` disagrees with the keys;
 * - GSI1_PROJECTION_DIFFERS, TTL_NOT_ENABLED: the table differs from `tableDefinition`;
 * - HOT_INDEX_KEY / DOMINANT_COLLECTION: one GSI1 partition key, or one item collection, holds
 *   half or more of all the index's (the table's) items, in a table of 1,000 items or more.
 *
 * What a Scan can and cannot say about heat. DynamoDB serves each partition key from one partition
 * (an item collection larger than 10 GB, or a hot one, may be split by sort key, but never below
 * one key's items), and a partition serves at most 3,000 RCU and 1,000 WCU per second. A Scan sees
 * what is stored, never the traffic, so the doctor reports the figures that size-driven heat follows
 * and leaves the traffic to CloudWatch (or `CloudWatch Contributor Insights`):
 * - for a collection: its items and bytes, and what reading it whole would cost (`fullReadRCU`,
 *   eventually consistent: bytes / 4 KB / 2), i.e. how few full reads per second reach 3,000 RCU.
 *   The model's reads of a customer collection are bounded by `Limit`, so a big collection is a
 *   risk only to unbounded readers (exports, scans by PK, a new access pattern);
 * - for a GSI1 partition key: its share of all index items and the WCU one index write costs
 *   (from the projected size), hence the index write rate at which that key alone reaches
 *   1,000 WCU *if writes were spread over keys like the stored items are*. That assumption is the
 *   weak point: a status every order passes through (PENDING) takes a far larger share of writes
 *   than of stored items, and a status nobody leaves (DELIVERED) the opposite. Read it as "how
 *   concentrated the index is", not as a traffic measurement.
 *
 * The parts: doctor-report.ts (the report's shape, thresholds, issue levels and messages),
 * doctor-analyzer.ts (the pure streaming analysis), doctor-table-facts.ts (DescribeTable to facts),
 * doctor-render.ts (the text report) and doctor-figures.ts (units and formats). This file runs the
 * doctor against a table and re-exports the parts' API, so callers import from here only.
 */
import { DescribeTableCommand, DescribeTimeToLiveCommand, type TimeToLiveDescription } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item, Table } from '../dynamo/table';
import { TableAnalyzer } from './doctor-analyzer';
import { round1 } from './doctor-figures';
import type { AnalyzeOptions, DoctorReport, TableFacts } from './doctor-report';
import { expectedTableFacts, tableFactsOf } from './doctor-table-facts';
import { parallelScan } from './parallel-scan';
import { progressBar } from './progress';
import { progressCounter } from './progress-counter';

export * from './doctor-report';
export { TableAnalyzer } from './doctor-analyzer';
export { expectedTableFacts, tableFactsOf } from './doctor-table-facts';
export { renderReport } from './doctor-render';

/** The report of a set of items (no table needed): for tests, exports and migration outputs. */
export function diagnose(items: Iterable<Item>, table: TableFacts = expectedTableFacts('app'), options: AnalyzeOptions = {}): DoctorReport {
  const analyzer = new TableAnalyzer(table, options);
  for (const item of items) analyzer.add(item);
  return analyzer.report();
}

/** The table (its name, for the Scan) and the document client (for DescribeTable): a `Connection` or a test `Stack`. */
export interface DoctorTarget {
  table: Table;
  doc: DynamoDBDocumentClient;
}

export interface DoctorOptions extends AnalyzeOptions {
  /** Parallel Scan segments. Default 4. */
  segments?: number;
  /** Show a progress bar on stderr (only when it is a terminal). Default false. */
  progress?: boolean;
}

export async function doctor(target: DoctorTarget, options: DoctorOptions = {}): Promise<DoctorReport> {
  const segments = options.segments ?? 4;
  if (!Number.isInteger(segments) || segments < 1 || segments > 1_000_000)
    throw new RangeError(`segments must be an integer 1..1000000, got ${segments}`);
  const name = target.table.name;
  const [{ Table: description }, ttl] = await Promise.all([
    target.doc.send(new DescribeTableCommand({ TableName: name })),
    // Without dynamodb:DescribeTimeToLive the doctor still runs; the TTL shows as unknown (a warning).
    target.doc.send(new DescribeTimeToLiveCommand({ TableName: name })).then(
      (out): TimeToLiveDescription => out.TimeToLiveDescription ?? { TimeToLiveStatus: 'DISABLED' },
      (error: unknown): TimeToLiveDescription => ({
        TimeToLiveStatus: `UNKNOWN (${(error as Error).name})` as TimeToLiveDescription['TimeToLiveStatus'],
      }),
    ),
  ]);
  if (!description) throw new Error(`DescribeTable ${name} returned no table`);
  const analyzer = new TableAnalyzer(tableFactsOf(description, ttl), { writeShards: target.table.writeShards, ...options });

  // DescribeTable's ItemCount is an estimate (Amazon refreshes it about every six hours; the
  // embedded engine says 0): a bar against it when there is one, a running count otherwise.
  const bar = description.ItemCount
    ? progressBar('doctor', description.ItemCount, { quiet: !options.progress })
    : progressCounter('doctor: scanned', 'items', { quiet: !options.progress });
  const started = performance.now();
  try {
    const totals = await parallelScan(target.table, {
      segments,
      // Strongly consistent (twice an eventual Scan's capacity): a replica behind a recent write
      // would show one item of a transaction without another, i.e. issues that are not there.
      consistentRead: true,
      onPage: ({ items }) => {
        for (const item of items) analyzer.add(item);
        bar.increment(items.length);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    return analyzer.report({
      segments,
      requests: totals.requests,
      items: totals.items,
      consumedRCU: round1(totals.capacity),
      seconds: round1(seconds),
    });
  } finally {
    bar.stop();
  }
}
