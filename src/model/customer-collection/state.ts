/**
 * What one request knows of one item collection, and how a planned Query's answer adds to it:
 * `absorb` splits the items by their `type` attribute into the declared members (the sort-key
 * prefix asserted by `memberOf`), `missingPart` says what is still unknown, `pageOf` cuts a
 * window's page from a run. Nothing here names a member: the declaration (declaration.ts) does.
 *
 * **A member over its bound** (an 11th address, from an import or a bug) is not an error: the
 * answer keeps the first items in the member's declared order, up to the bound (for the
 * addresses, the lowest labels: what the ascending head Query, whose `Limit` stops at the bound,
 * returns too, so both reads agree), and `absorb` returns a `CollectionAnomaly` for the caller to
 * report. The screen Query's `Limit` counts on the bound, so a surplus cuts its window short; the
 * run is then incomplete and the caller reads it again from the root down (session.ts), in one
 * more wave, only for such data.
 */
import type { Item } from '../../dynamo/types';
import { compareUtf8 } from '../keys';
import type { CollectionDeclaration, CollectionMember, WindowLike } from './declaration';
import { wants, type AnyNeed, type PlannedQuery } from './plan';

/** What is known of one collection so far in a request. */
export interface CollectionState {
  /** undefined: not known yet. */
  exists: boolean | undefined;
  /** The records of each head member read whole (the root's: one record, or none); absent: not known yet. */
  members: Map<string, unknown[]>;
  /** Records read from the start of a run (see `RunSpec.key`), newest first; `complete` when the run ended. */
  runs: Map<string, { records: unknown[]; complete: boolean }>;
}

/** Data that breaks the collection's declaration, read and answered anyway. */
export interface CollectionAnomaly {
  customerId: string;
  member: string;
  message: string;
}

export function emptyState(): CollectionState {
  return { exists: undefined, members: new Map(), runs: new Map() };
}

/** A member's records in its declared order, and what is over its bound. */
function bounded(
  collection: CollectionDeclaration,
  member: CollectionMember,
  id: string,
  items: readonly Item[],
  anomalies: CollectionAnomaly[],
) {
  // Sort-key order (UTF-8 bytes, as DynamoDB compares them) whichever way the Query read, so a
  // descending and an ascending read answer, and cut, the same items.
  const records = [...items].sort((a, b) => compareUtf8(String(a.SK), String(b.SK))).map(member.read);
  if (member.order) records.sort(member.order as (a: unknown, b: unknown) => number);
  const bound = member.bound as number;
  if (records.length > bound) {
    anomalies.push({
      customerId: id,
      member: member.name,
      message: `collection ${collection.pk(id)} holds ${records.length} ${member.name}, over the bound of ${bound}; the first ${bound} are answered`,
    });
  }
  return records.slice(0, bound);
}

/**
 * Splits a planned Query's items by member into `state`; returns what broke the declaration.
 * Throws (an internal error) for an item of the collection that is no member's, or whose keys
 * contradict its `type`: corrupt data is not guessed at.
 */
export function absorb(
  collection: CollectionDeclaration,
  id: string,
  state: CollectionState,
  query: PlannedQuery,
  items: readonly Item[],
  complete: boolean,
): CollectionAnomaly[] {
  const anomalies: CollectionAnomaly[] = [];
  const split = new Map<string, Item[]>(collection.members.map((member) => [member.name, []]));
  for (const item of items) split.get(collection.memberOf(item).name)!.push(item);

  const { root, window } = collection;
  const rootItem = split.get(root.name)![0];
  const windowItems = split.get(window.name)!;
  // Whether the Query read past where the root sits: an ascending head Query starts there, a
  // descending one has passed it once it meets the window member.
  const passedRoot = complete || windowItems.length > 0 || (query.input.ScanIndexForward !== false && items.length > 0);
  if (rootItem) {
    state.members.set(root.name, [root.read(rootItem)]);
    state.exists = true;
  } else if (query.readsTop && passedRoot) {
    state.exists = false;
  }
  for (const name of query.reads) {
    const member = collection.member(name);
    if (member !== root) state.members.set(name, bounded(collection, member, id, split.get(name)!, anomalies));
  }
  if (query.window) {
    const records = windowItems.map(window.read);
    if (records.length > 0) state.exists = true;
    state.runs.set(collection.runs.key(query.window), { records, complete });
  }
  return anomalies;
}

/** The part of `need` that `state` cannot answer yet. Existence is always wanted. */
export function missingPart<N extends AnyNeed>(collection: CollectionDeclaration, need: N, state: CollectionState): N {
  const missing: Record<string, unknown> = { windows: [] };
  for (const member of collection.head.members) missing[member.name] = false;
  if (state.exists === false) return missing as N;
  for (const member of collection.head.members) missing[member.name] = wants(need, member.name) && !state.members.has(member.name);
  missing.windows = need.windows.filter((window: WindowLike) => {
    const run = state.runs.get(collection.runs.key(window));
    return !run || (!run.complete && run.records.length <= window.first);
  });
  return missing as N;
}

export function isSatisfied(collection: CollectionDeclaration, need: AnyNeed, state: CollectionState): boolean {
  const missing = missingPart(collection, need, state);
  return (
    state.exists !== undefined && collection.head.members.every((member) => !wants(missing, member.name)) && missing.windows.length === 0
  );
}

/** The page a window asks for, from what `state` holds (the caller made sure it holds enough). */
export function pageOf(collection: CollectionDeclaration, id: string, state: CollectionState, window: WindowLike): unknown {
  const run = state.runs.get(collection.runs.key(window)) ?? { records: [], complete: true };
  return collection.runs.page(id, run.records, window);
}
