/**
 * Migration bookkeeping, kept in the table itself (src/ops/migrations runs the migrations).
 *
 * Keys (declared in src/model/entity/migration.ts): the applied record `MIGRATION#<name>` /
 * `APPLIED`, and one checkpoint per scan segment, `MIGRATION#<name>` / `CHECKPOINT#<segment>`.
 * One access pattern, `migrationState` (declared on the function below).
 *
 * A checkpoint is where one scan segment of a run stands: the `LastEvaluatedKey` after the last
 * page whose rewrites have all settled (`next`), or `done`, plus that segment's counts so far and
 * the number of segments of the run (a key only resumes the same segmentation). The applied record
 * is written, and the checkpoints deleted, in one transaction once every segment is done; a forced
 * rerun updates it (`runs`, `lastRunAt`). Every write goes through the write guards.
 */
import type { Item, Key, Table, TransactAction } from '../dynamo/table';
import { writeTransaction, writeUpdate } from './guards';
import { isConditionalCheckFailed } from './transactions';
import { assignments, updateExpression } from '../dynamo/update-expression';
import { pattern, queryRequest, sendQuery } from './declare';
import { migrationAppliedEntity, migrationCheckpointEntity } from './entity/migration';

export const MIGRATION_PREFIX = migrationAppliedEntity.templates.PK.prefix;
export const APPLIED_SK = migrationAppliedEntity.templates.SK.text;
export const CHECKPOINT_PREFIX = migrationCheckpointEntity.templates.SK.prefix;
/** At most this many scan segments, so the applied record and every checkpoint fit in one transaction. */
export const MAX_SEGMENTS = 64;

/** A migration's name: its file name, `NNNN-words-with-dashes` (the declared key part). */
export function isMigrationName(name: string): boolean {
  return migrationAppliedEntity.isPart('name', name);
}

/** The keys of a migration's bookkeeping, built from their declarations (entity/migration.ts). */
export const migrationKeys = {
  pk: (name: string) => migrationAppliedEntity.templates.PK.build({ name }),
  applied: (name: string): Key => migrationAppliedEntity.key({ name }),
  checkpoint: (name: string, segment: number): Key => migrationCheckpointEntity.key({ name, segment }),
};

// ---- codec ---------------------------------------------------------------------------------

/** What a run did, summed over segments (and, in a checkpoint, over the runs that resumed it). */
export interface MigrationCounts {
  /** Items the scan returned. */
  scanned: number;
  /** Items the migration selected for a rewrite. */
  selected: number;
  /** Conditional rewrites that landed. */
  updated: number;
  /** Rewrites whose condition failed: the item changed (or was rewritten) after it was scanned. */
  skipped: number;
  /** Selected items the migration could not rewrite (e.g. a line whose order header is missing). */
  unresolved: number;
}

export const COUNT_NAMES = ['scanned', 'selected', 'updated', 'skipped', 'unresolved'] as const satisfies ReadonlyArray<
  keyof MigrationCounts
>;

export function zeroCounts(): MigrationCounts {
  return { scanned: 0, selected: 0, updated: 0, skipped: 0, unresolved: 0 };
}

export function addCounts(a: MigrationCounts, b: MigrationCounts): MigrationCounts {
  const sum = zeroCounts();
  for (const name of COUNT_NAMES) sum[name] = a[name] + b[name];
  return sum;
}

export interface Checkpoint {
  segment: number;
  /** The run's number of segments; a `next` key is only valid for the same segmentation. */
  segments: number;
  /** Where the segment resumes (exclusive); undefined when `done`. */
  next: Record<string, unknown> | undefined;
  done: boolean;
  /** Pages settled so far: a checkpoint only ever moves forward. */
  pages: number;
  counts: MigrationCounts;
  updatedAt: string;
}

export interface AppliedRecord {
  name: string;
  appliedAt: string;
  lastRunAt: string;
  runs: number;
  segments: number;
  counts: MigrationCounts;
}

function countsFrom(item: Item): MigrationCounts {
  const counts = zeroCounts();
  for (const name of COUNT_NAMES) counts[name] = typeof item[name] === 'number' ? item[name] : 0;
  return counts;
}

export function checkpointFromItem(item: Item): Checkpoint {
  return {
    segment: Number(item.segment),
    segments: Number(item.segments),
    next: item.done === true ? undefined : (item.next as Record<string, unknown> | undefined),
    done: item.done === true,
    pages: Number(item.pages ?? 0),
    counts: countsFrom(item),
    updatedAt: String(item.updatedAt ?? ''),
  };
}

export function appliedFromItem(item: Item): AppliedRecord {
  return {
    name: String(item.name),
    appliedAt: String(item.appliedAt),
    lastRunAt: String(item.lastRunAt ?? item.appliedAt),
    runs: Number(item.runs ?? 1),
    segments: Number(item.segments ?? 0),
    counts: countsFrom(item),
  };
}

// ---- access pattern ------------------------------------------------------------------------

export interface MigrationState {
  applied: AppliedRecord | undefined;
  /** By segment; empty when no run is in progress. */
  checkpoints: Checkpoint[];
}

/**
 * migrationState's Query: the applied record and at most MAX_SEGMENTS checkpoints (a run never has
 * more segments), consistent: what a run resumes from is what was written last.
 */
const stateQuery = (name: string) =>
  queryRequest({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': migrationKeys.pk(name) },
    ConsistentRead: true,
    Limit: 1 + MAX_SEGMENTS,
  });

/** migrationState: the applied record and the checkpoints of one migration, one consistent Query. */
export const migrationState = pattern(
  {
    entity: 'Migration record',
    graphql: [],
    request: stateQuery,
    example: ['0001-order-lines-by-sku'],
    note: `the APPLIED record and every CHECKPOINT#<segment> (≤ ${MAX_SEGMENTS})`,
  },
  async function migrationState(table: Table, name: string): Promise<MigrationState> {
    const request = stateQuery(name).input;
    const { items } = await sendQuery(table, request);
    const applied = items.find(migrationAppliedEntity.matches);
    return {
      applied: applied ? appliedFromItem(applied) : undefined,
      checkpoints: items
        .filter(migrationCheckpointEntity.matches)
        .map(checkpointFromItem)
        .sort((a, b) => a.segment - b.segment),
    };
  },
);

// ---- writes --------------------------------------------------------------------------------

/**
 * Records where a segment stands. Conditioned on moving forward (`pages` grows), so a slower
 * concurrent run of the same migration never drags a checkpoint back. Returns false when the
 * stored checkpoint is already as far or further.
 */
export async function saveCheckpoint(table: Table, name: string, checkpoint: Omit<Checkpoint, 'updatedAt'>, now: string): Promise<boolean> {
  const set = assignments({
    type: migrationCheckpointEntity.type,
    migration: name,
    segment: checkpoint.segment,
    segments: checkpoint.segments,
    pages: checkpoint.pages,
    done: checkpoint.done,
    ...(checkpoint.done ? {} : { next: checkpoint.next }),
    ...checkpoint.counts,
    updatedAt: now,
  });
  try {
    await writeUpdate(table, {
      Key: migrationKeys.checkpoint(name, checkpoint.segment),
      UpdateExpression: updateExpression({ set: set.list, remove: checkpoint.done ? ['#next'] : [] }),
      ConditionExpression: 'attribute_not_exists(#pages) OR #pages < :pages',
      ExpressionAttributeNames: { ...set.names, '#next': 'next' },
      ExpressionAttributeValues: set.values,
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/**
 * Records a finished run: the applied record (created, or updated by a forced rerun: `runs` + 1,
 * `lastRunAt`, the counts of this run; `appliedAt` stays the first) and the deletion of every
 * checkpoint, in one transaction.
 */
export async function recordApplied(
  table: Table,
  name: string,
  run: { segments: number; counts: MigrationCounts; checkpoints: number },
  now: string,
): Promise<void> {
  const set = assignments({ type: migrationAppliedEntity.type, name, lastRunAt: now, segments: run.segments, ...run.counts });
  const actions: TransactAction[] = [
    {
      Update: {
        Key: migrationKeys.applied(name),
        UpdateExpression: updateExpression({
          set: [...set.list, '#appliedAt = if_not_exists(#appliedAt, :lastRunAt)', '#runs = if_not_exists(#runs, :zero) + :one'],
        }),
        ExpressionAttributeNames: { ...set.names, '#appliedAt': 'appliedAt', '#runs': 'runs' },
        ExpressionAttributeValues: { ...set.values, ':zero': 0, ':one': 1 },
      },
    },
    ...Array.from({ length: run.checkpoints }, (_, segment): TransactAction => ({
      Delete: { Key: migrationKeys.checkpoint(name, segment) },
    })),
  ];
  await writeTransaction(table, actions);
}
