/**
 * Migration bookkeeping, kept in the table itself (src/migrations runs the migrations).
 *
 * | pattern        | index | key condition                               | order       |
 * | -------------- | ----- | ------------------------------------------- | ----------- |
 * | migrationState | table | PK = MIGRATION#<name>, consistent           | by sort key |
 *
 * Keys:
 *   applied record   PK = MIGRATION#<name>  SK = APPLIED
 *   checkpoint       PK = MIGRATION#<name>  SK = CHECKPOINT#<segment, 3 digits>
 *
 * A checkpoint is where one scan segment of a run stands: the `LastEvaluatedKey` after the last
 * page whose rewrites have all settled (`next`), or `done`, plus that segment's counts so far and
 * the number of segments of the run (a key only resumes the same segmentation). The applied record
 * is written, and the checkpoints deleted, in one transaction once every segment is done; a forced
 * rerun updates it (`runs`, `lastRunAt`). Every write goes through the write guards.
 */
import type { Item, Key, Table, TransactAction } from '../dynamo/table';
import { writeTransaction, writeUpdate } from './guards';
import { declareEntity, declarePatterns, pkOf, skOf } from './declare';
import { SEP } from './keys';

export const MIGRATION_PREFIX = `MIGRATION${SEP}`;
export const APPLIED_SK = 'APPLIED';
export const CHECKPOINT_PREFIX = `CHECKPOINT${SEP}`;
/** A migration's name: its file name, `NNNN-words-with-dashes`. */
const MIGRATION_NAME = /^\d{4}-[a-z0-9]+(-[a-z0-9]+)*$/;
/** At most this many scan segments, so the applied record and every checkpoint fit in one transaction. */
export const MAX_SEGMENTS = 64;

export function isMigrationName(name: string): boolean {
  return MIGRATION_NAME.test(name);
}

export const migrationKeys = {
  pk: (name: string) => `${MIGRATION_PREFIX}${name}`,
  applied: (name: string): Key => ({ PK: migrationKeys.pk(name), SK: APPLIED_SK }),
  checkpoint: (name: string, segment: number): Key => ({ PK: migrationKeys.pk(name), SK: `${CHECKPOINT_PREFIX}${String(segment).padStart(3, '0')}` }),
};

export const migrationAppliedEntity = declareEntity({
  name: 'Migration record',
  type: 'MIGRATION',
  keys: { PK: 'MIGRATION#<name>', SK: 'APPLIED' },
  matches: (item) => pkOf(item).startsWith(MIGRATION_PREFIX) && skOf(item) === APPLIED_SK,
  requiresGsi1: false,
  expires: false,
});

export const migrationCheckpointEntity = declareEntity({
  name: 'Migration checkpoint',
  type: 'MIGRATION_CHECKPOINT',
  keys: { PK: 'MIGRATION#<name>', SK: 'CHECKPOINT#<segment, 3 digits>' },
  matches: (item) => pkOf(item).startsWith(MIGRATION_PREFIX) && skOf(item).startsWith(CHECKPOINT_PREFIX),
  requiresGsi1: false,
  expires: false,
});

export const migrationPatterns = declarePatterns(
  { name: 'migrationState', entity: 'Migration record', graphql: [], index: 'table', operation: 'Query', keyCondition: 'PK = MIGRATION#<name>: the APPLIED record and every CHECKPOINT#<segment>, consistent', order: 'by sort key', bound: `1 + segments (≤ ${MAX_SEGMENTS})` },
);

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

export const COUNT_NAMES = ['scanned', 'selected', 'updated', 'skipped', 'unresolved'] as const satisfies ReadonlyArray<keyof MigrationCounts>;

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

/** migrationState: the applied record and the checkpoints of one migration, one consistent Query. */
export async function migrationState(table: Table, name: string): Promise<MigrationState> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.query({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': migrationKeys.pk(name) },
      ConsistentRead: true,
      ExclusiveStartKey: start,
    });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const applied = items.find((item) => item.SK === APPLIED_SK);
  return {
    applied: applied ? appliedFromItem(applied) : undefined,
    checkpoints: items.filter((item) => String(item.SK).startsWith(CHECKPOINT_PREFIX)).map(checkpointFromItem).sort((a, b) => a.segment - b.segment),
  };
}

// ---- writes --------------------------------------------------------------------------------

/**
 * `SET #a = :a, …` for `values`, every name behind a placeholder (DynamoDB reserves many plain
 * words, `name`, `type`, `segment`, `next` among them).
 */
function setAll(values: Record<string, unknown>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const entries = Object.entries(values);
  return {
    expression: entries.map(([name]) => `#${name} = :${name}`).join(', '),
    names: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
    values: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
  };
}

/**
 * Records where a segment stands. Conditioned on moving forward (`pages` grows), so a slower
 * concurrent run of the same migration never drags a checkpoint back. Returns false when the
 * stored checkpoint is already as far or further.
 */
export async function saveCheckpoint(table: Table, name: string, checkpoint: Omit<Checkpoint, 'updatedAt'>, now: string): Promise<boolean> {
  const set = setAll({
    type: 'MIGRATION_CHECKPOINT',
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
      UpdateExpression: checkpoint.done ? `SET ${set.expression} REMOVE #next` : `SET ${set.expression}`,
      ConditionExpression: 'attribute_not_exists(#pages) OR #pages < :pages',
      ExpressionAttributeNames: { ...set.names, '#next': 'next' },
      ExpressionAttributeValues: set.values,
    });
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Records a finished run: the applied record (created, or updated by a forced rerun: `runs` + 1,
 * `lastRunAt`, the counts of this run; `appliedAt` stays the first) and the deletion of every
 * checkpoint, in one transaction.
 */
export async function recordApplied(table: Table, name: string, run: { segments: number; counts: MigrationCounts; checkpoints: number }, now: string): Promise<void> {
  const set = setAll({ type: 'MIGRATION', name, lastRunAt: now, segments: run.segments, ...run.counts });
  const actions: TransactAction[] = [
    {
      Update: {
        Key: migrationKeys.applied(name),
        UpdateExpression: `SET ${set.expression}, #appliedAt = if_not_exists(#appliedAt, :lastRunAt), #runs = if_not_exists(#runs, :zero) + :one`,
        ExpressionAttributeNames: { ...set.names, '#appliedAt': 'appliedAt', '#runs': 'runs' },
        ExpressionAttributeValues: { ...set.values, ':zero': 0, ':one': 1 },
      },
    },
    ...Array.from({ length: run.checkpoints }, (_, segment): TransactAction => ({ Delete: { Key: migrationKeys.checkpoint(name, segment) } })),
  ];
  await writeTransaction(table, actions);
}
