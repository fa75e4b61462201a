/**
 * What `npm run migrate -- --list` shows: each migration's state, and for those neither applied
 * nor started whether they are needed, decided by their own dry run's logic (`decidePage`, so the
 * list and `--dry-run` cannot disagree), all of them over ONE strongly consistent parallel scan of
 * the table, not one scan each. A migration's probe ends at the first
 * page holding an item it would rewrite; the scan ends when every probe has ended, or at the end of
 * the table. Read-only.
 */
import type { Item, Table } from '../../dynamo/table';
import { addCounts, migrationState, zeroCounts, type AppliedRecord, type MigrationCounts } from '../../model/migration';
import type { Migration } from './migration';
import { decidePage } from './runner';

export interface MigrationStatus {
  name: string;
  description: string;
  /**
   * `pending`: neither applied nor started (and, when probed, its dry run would rewrite items);
   * `not needed`: neither applied nor started, and its dry run selects nothing it would rewrite.
   */
  status: 'applied' | 'pending' | 'in progress' | 'not needed';
  applied: AppliedRecord | undefined;
  /** For a run in progress: segments done, of how many. */
  progress: { done: number; segments: number } | undefined;
  /** Only with `probe`, for a migration neither applied nor started: what its dry run found. */
  need?: MigrationNeed;
}

/** What a migration's own dry run (`migrationNeed`) says about the table now. */
export interface MigrationNeed {
  /** Items it would rewrite (selected and resolvable) among those scanned; > 0 means needed. */
  wouldUpdate: number;
  /** The dry run's counts. */
  counts: MigrationCounts;
  /** Whether the whole table was scanned (a needed migration's probe stops at the first page that would rewrite). */
  complete: boolean;
}

const PROBE_SEGMENTS = 4;
const PROBE_PAGE_SIZE = 100;

/** Thrown from a page once every probe has its answer: stops the scan early. */
class Decided extends Error {}

/** What each migration's dry run says of the table now (in `list`'s order), over one scan. */
export async function migrationNeeds(table: Table, list: readonly Migration[]): Promise<MigrationNeed[]> {
  const needs: MigrationNeed[] = list.map(() => ({ wouldUpdate: 0, counts: zeroCounts(), complete: true }));
  if (list.length === 0) return needs;
  const open = new Set(list.keys());
  const onPage = async ({ items }: { items: Item[] }) => {
    if (open.size === 0) throw new Decided();
    await Promise.all(
      [...open].map(async (i) => {
        const { counts, rewrites } = await decidePage(table, list[i]!, items);
        const need = needs[i]!;
        need.counts = addCounts(need.counts, counts);
        need.wouldUpdate += rewrites.length;
        if (rewrites.length > 0) {
          need.complete = false;
          open.delete(i);
        }
      }),
    );
  };
  try {
    // Strongly consistent, as a run's scan: an item written just before must be seen.
    await table.parallelScan({ segments: PROBE_SEGMENTS, pageSize: PROBE_PAGE_SIZE, consistentRead: true, onPage });
  } catch (error) {
    if (!(error instanceof Decided)) throw error;
  }
  return needs;
}

/**
 * Each migration's state: applied (with its record), in progress (checkpoints) or pending. With
 * `probe`, the migrations neither applied nor started are dry-run together (`migrationNeeds`, one
 * read-only scan, whole when one of them selects nothing) and each is `pending` only when it would
 * rewrite items, else `not needed`.
 */
export async function migrationStatuses(
  table: Table,
  list: readonly Migration[],
  options: { probe?: boolean } = {},
): Promise<MigrationStatus[]> {
  const statuses = await Promise.all(
    list.map(async (migration): Promise<MigrationStatus> => {
      const state = await migrationState(table, migration.name);
      const inProgress = state.checkpoints.length > 0;
      return {
        name: migration.name,
        description: migration.description,
        status: state.applied && !inProgress ? 'applied' : inProgress ? 'in progress' : 'pending',
        applied: state.applied,
        progress: inProgress
          ? { done: state.checkpoints.filter((c) => c.done).length, segments: state.checkpoints[0]!.segments }
          : undefined,
      };
    }),
  );
  if (!options.probe) return statuses;
  // Every pending migration probed by one scan of the table (probe.ts), not one scan each.
  const pending = statuses.flatMap((status, i) => (status.status === 'pending' ? [list[i]!] : []));
  const needs = new Map(pending.map((migration, i) => [migration.name, i]));
  const found = await migrationNeeds(table, pending);
  return statuses.map((status) => {
    const i = needs.get(status.name);
    if (i === undefined) return status;
    const need = found[i]!;
    return { ...status, status: need.wouldUpdate > 0 ? 'pending' : 'not needed', need };
  });
}
