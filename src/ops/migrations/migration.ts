/**
 * What a migration file declares: which items it touches and how it rewrites each one. The runner
 * (runner.ts) does everything else: the parallel scan, the rate limit, the conditional writes, the
 * checkpoints and the applied record.
 *
 * A migration is a pure description, so its dry run and its real run share every decision:
 * - `selects(item, table)`: whether a scanned item needs the rewrite (`table`: the table scanned,
 *   for its settings, e.g. `writeShards`; it reads nothing). An item already rewritten must not
 *   be selected: that is what makes a second run change nothing.
 * - `prepare(table, selected)`: reads what the rewrites of one page need, batched (one
 *   BatchGetItem a page, say, never one read per item). Runs in dry runs too (it only reads).
 * - `rewrite(item, context)`: the attributes to SET and the condition under which they still
 *   apply, or why the item cannot be rewritten (`unresolved`, counted and reported). The runner
 *   sends it as one UpdateItem conditioned on `attribute_exists(PK) AND (<condition>)`, so a
 *   deleted item is never resurrected and an item changed since it was scanned is left alone.
 */
import type { Item, Key, Table } from '../../dynamo/table';
import type { EntityDeclaration } from '../../model/declare';

export interface Rewrite {
  key: Key;
  /** Attributes to SET. */
  set: Record<string, unknown>;
  /** What must still hold of the item when the write lands, besides that it exists. */
  condition: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

export type Decision = { rewrite: Rewrite } | { unresolved: string };

export interface Migration<Context = unknown> {
  /** `NNNN-words`, the file name; runs in this order. */
  name: string;
  description: string;
  /** The entity whose items it rewrites (declared in src/model). */
  touches: EntityDeclaration;
  selects(item: Item, table: Table): boolean;
  prepare(table: Table, selected: readonly Item[]): Promise<Context>;
  rewrite(item: Item, context: Context): Decision;
}

/** Types a migration file's export; the registry holds them without their context type. */
export function defineMigration<Context>(migration: Migration<Context>): Migration {
  return migration as unknown as Migration;
}
