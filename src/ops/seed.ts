/**
 * `seed(target, options)`: writes generated data (seed-data.ts) into the table with
 * BatchWriteItem (`Table.putAll`, through the write guards), behind a progress bar, and measures
 * the throughput. `npm run seed` (src/entry/cli/seed.ts) is its command line.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchWriteTotals, Table } from '../dynamo/table';
import { guarded } from '../model';
import { progressBar } from './progress';
import { countSeedItems, resolveSeedOptions, seedItems, type SeedCounts, type SeedDataOptions } from './seed-data';

/** Where to write: the table (a `Connection` or a test `Stack`); every write goes through it, guarded. */
export interface SeedTarget {
  table: Table;
  /** Unused: the table reaches the engine. Kept so a `Connection` or a `Stack` is a target as it is. */
  doc?: DynamoDBDocumentClient;
}

export interface SeedOptions extends SeedDataOptions {
  /** BatchWriteItem calls in flight. Default 8. */
  concurrency?: number;
  /** Show a progress bar on stderr (only when it is a terminal). Default false. */
  progress?: boolean;
}

export interface SeedResult {
  seed: string;
  counts: SeedCounts;
  write: BatchWriteTotals;
  /** Whether the table held no item before (seeding adds to what is there; the same seed rewrites the same items). */
  tableWasEmpty: boolean;
  /** Time to count the items (a dry run of the generator, for the progress bar). */
  countSeconds: number;
  /** Time to generate and write them. */
  writeSeconds: number;
  itemsPerSecond: number;
  ordersPerSecond: number;
}

export async function seed(target: SeedTarget, options: SeedOptions): Promise<SeedResult> {
  const resolved = resolveSeedOptions(options);
  const probe = await target.table.scan({ Limit: 1, ProjectionExpression: 'PK' });
  const tableWasEmpty = (probe.Items?.length ?? 0) === 0 && !probe.LastEvaluatedKey;

  const countStarted = performance.now();
  const counts = countSeedItems(options);
  const countSeconds = (performance.now() - countStarted) / 1000;

  const bar = progressBar('seed', counts.items, { quiet: !options.progress });
  const started = performance.now();
  let write: BatchWriteTotals;
  try {
    write = await guarded(target.table).putAll(seedItems(options, target.table.writeShards), {
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      onWritten: (n) => bar.increment(n),
    });
  } finally {
    bar.stop();
  }
  const writeSeconds = (performance.now() - started) / 1000;
  if (write.items !== counts.items) throw new Error(`wrote ${write.items} items, expected ${counts.items}`);
  return {
    seed: resolved.seed,
    counts,
    write,
    tableWasEmpty,
    countSeconds,
    writeSeconds,
    itemsPerSecond: write.items / Math.max(writeSeconds, 1e-9),
    ordersPerSecond: counts.orders / Math.max(writeSeconds, 1e-9),
  };
}
