/**
 * Planning reads of an item collection, apart from sending them (as DynamoDB-Toolbox separates
 * `params()` from `send()`): `planReads` returns the Query inputs it would send, so request
 * budgets are unit-testable without an engine (test/model/collection-plan.test.ts). Key
 * conditions, orders, `Limit`s and the patterns' names and bounds are derived from the
 * collection's declaration (declaration.ts); for the customer collection (members.ts):
 *
 * | pattern               | key condition (PK = CUSTOMER#<id>)           | order | Limit                        |
 * | --------------------- | -------------------------------------------- | ----- | ---------------------------- |
 * | customerScreen        | (none): addresses, profile, newest orders    | desc  | 1 + 10 + first + 1           |
 * | customerProfileOrders | SK <= PROFILE: profile, newest orders        | desc  | 1 + first + 1                |
 * | customerHead          | begins_with(SK, PROFILE) or SK = PROFILE     | asc   | 1 + 10, or 1                 |
 * | customerOrderWindow   | begins_with(SK, ORDER#[YYYY-MM]), a cursor   | desc  | first + 1                    |
 */
import type { QueryInput } from '../../dynamo/paging';
import { declarePattern, type AccessPattern } from '../declare';
import { wants, type AnyNeed, type CollectionDeclaration, type CollectionMember, type WindowLike } from './declaration';

export { wants, type AnyNeed, type NeedOf } from './declaration';
import { customerCollection, type CollectionNeed } from './members';
import type { OrderWindow } from './window';

export type PlannedPattern = string;

/** One Query of a plan, and what its answer will tell. */
export interface PlannedQuery<W extends WindowLike = WindowLike> {
  pattern: PlannedPattern;
  /** Exactly what is sent (the Table adds the table name); `Limit` included. */
  input: QueryInput;
  limit: number;
  /** The run whose items this Query reads, if any. */
  window: W | undefined;
  /** Whether the Query reads where the root sits (it meets the root item if there is one). */
  readsTop: boolean;
  /** The head members it reads whole. */
  reads: readonly string[];
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const singular = (text: string) => text.replace(/s$/, '');

/** The names of a collection's planned patterns (`customerScreen`, …), from its declaration. */
export function patternNames(collection: CollectionDeclaration) {
  const { patterns: prefix, window } = collection;
  return {
    screen: `${prefix}Screen`,
    from: (member: CollectionMember) => `${prefix}${capital(member.name)}${capital(window.name)}`,
    head: `${prefix}Head`,
    run: `${prefix}${capital(singular(window.name))}Window`,
  };
}

/** Merges the needs of one collection: the union of head members, the widest window of each run. */
export function mergeNeeds<N extends AnyNeed>(collection: CollectionDeclaration, needs: readonly N[]): N {
  const widest = new Map<string, WindowLike>();
  for (const window of needs.flatMap((need) => need.windows)) {
    const known = widest.get(collection.runs.key(window));
    if (!known || known.first < window.first) widest.set(collection.runs.key(window), window);
  }
  const merged: Record<string, unknown> = { windows: [...widest.values()] };
  for (const member of collection.head.members) merged[member.name] = needs.some((need) => wants(need, member.name));
  return merged as N;
}

/** Whether the need is the root alone (the profile), which a BatchGetItem across collections serves best. */
export function isRootOnly(collection: CollectionDeclaration, need: AnyNeed): boolean {
  return need.windows.length === 0 && collection.head.members.every((member) => member === collection.root || !wants(need, member.name));
}

/**
 * The Queries that answer `need` (already reduced to what is missing), all independent of each
 * other so they go out in one wave. The head rides with the newest window when there is one,
 * since it is adjacent to the newest end of the window member: a descending Query from the
 * topmost member wanted (the root at least, for existence). Every `Limit` is the declared bound of
 * the members it passes plus the window's `first + 1`, so a read is bounded whatever the data (the
 * cost estimate counts on it, src/admission/cost.ts).
 */
export function planReads<W extends WindowLike>(
  collection: CollectionDeclaration<string, W>,
  id: string,
  need: AnyNeed,
): PlannedQuery<W>[] {
  const names = patternNames(collection);
  const pk = collection.pk(id);
  const { head, root, runs } = collection;
  const wanted = head.members.filter((member) => wants(need, member.name));
  const plan: PlannedQuery<W>[] = [];
  const query = (pattern: string, input: QueryInput, window: W | undefined, readsTop: boolean, reads: readonly CollectionMember[]) =>
    plan.push({ pattern, input, limit: input.Limit!, window, readsTop, reads: reads.map((member) => member.name) });
  const windows = need.windows as W[];
  const newest = windows.find((window) => runs.newest(window));
  if (newest) {
    // Descending from the topmost member wanted (the root at least) through the newest window.
    const top = head.members.find((member) => member === root || wants(need, member.name))!;
    const index = head.members.indexOf(top);
    const limit = collection.boundAbove(collection.window.name) - collection.boundAbove(top.name) + newest.first + 1;
    const reads = head.members.slice(index);
    if (index === 0) {
      query(
        names.screen,
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ScanIndexForward: false, Limit: limit },
        newest,
        true,
        reads,
      );
    } else if (top.exact) {
      const value = `:${top.name}`;
      query(
        names.from(top),
        {
          KeyConditionExpression: `PK = :pk AND SK <= ${value}`,
          ExpressionAttributeValues: { ':pk': pk, [value]: top.prefix },
          ScanIndexForward: false,
          Limit: limit,
        },
        newest,
        true,
        reads,
      );
    } else {
      // Every key of a member sorts below the lowest key of the member above it, which is above its prefix.
      const above = head.members[index - 1]!;
      query(
        names.from(top),
        {
          KeyConditionExpression: 'PK = :pk AND SK < :above',
          ExpressionAttributeValues: { ':pk': pk, ':above': above.prefix },
          ScanIndexForward: false,
          Limit: limit,
        },
        newest,
        true,
        reads,
      );
    }
  } else if (wanted.length === 1 && wanted[0]!.exact) {
    // One exact member (the profile): its one key.
    const member = wanted[0]!;
    const value = `:${member.name}`;
    query(
      names.head,
      { KeyConditionExpression: `PK = :pk AND SK = ${value}`, ExpressionAttributeValues: { ':pk': pk, [value]: member.prefix }, Limit: 1 },
      undefined,
      member === root,
      [member],
    );
  } else if (wanted.length > 0) {
    // The head alone, ascending: at most the sum of its bounds.
    query(
      names.head,
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :head)',
        ExpressionAttributeValues: { ':pk': pk, ':head': head.prefix },
        Limit: head.bound,
      },
      undefined,
      true,
      head.members,
    );
  }
  for (const window of windows.filter((w) => !runs.newest(w))) {
    query(
      names.run,
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': runs.prefix(window) },
        ScanIndexForward: false,
        Limit: window.first + 1,
        ...(window.start ? { ExclusiveStartKey: window.start } : {}),
      },
      window,
      false,
      [],
    );
  }
  return plan;
}

/** The Queries that answer one customer's `need`: `planReads` of the customer collection. */
export function planCollection(customerId: string, need: CollectionNeed): PlannedQuery<OrderWindow>[] {
  return planReads(customerCollection, customerId, need);
}

type Window = { first: number };
/**
 * The Queries a collection's plans may hold (`PlannedQuery.pattern`), declared for the generated
 * documentation and the bounds test from the collection's declaration; bounds take the window's `first`.
 */
export function plannedPatterns(collection: CollectionDeclaration, entity: string, graphql: string): AccessPattern[] {
  const names = patternNames(collection);
  const { head, root, window } = collection;
  const pk = collection.pk(`<${head.members[0]!.key}>`);
  const top = collection.boundAbove(window.name);
  const bounds = (members: readonly CollectionMember[]) =>
    members
      .map((m) => String(m.bound))
      .reverse()
      .join(' + ');
  const fromRoot = head.members.slice(head.members.indexOf(root));
  const field = (member: CollectionMember) => (member.fields ?? []).map((f) => `${graphql}.${f}`);
  return [
    declarePattern(names.screen, {
      entity,
      graphql: [...head.members.flatMap(field), ...field(window)],
      index: 'table',
      operation: 'Query',
      keyCondition: `PK = ${pk}`,
      order: 'newest first',
      bound: ({ first }: Window) => top + first + 1,
      boundDoc: `Limit ${bounds(head.members)} + first + 1`,
    }),
    declarePattern(names.from(root), {
      entity,
      graphql: [...field(root), ...field(window)],
      index: 'table',
      operation: 'Query',
      keyCondition: `PK = ${pk}, SK <= ${root.prefix}`,
      order: 'newest first',
      bound: ({ first }: Window) => top - collection.boundAbove(root.name) + first + 1,
      boundDoc: `Limit ${bounds(fromRoot)} + first + 1`,
    }),
    declarePattern(names.head, {
      entity,
      graphql: head.members.flatMap(field),
      index: 'table',
      operation: 'Query',
      keyCondition: `PK = ${pk}, begins_with(SK, ${head.prefix}) or SK = ${root.prefix}`,
      order: '—',
      bound: () => head.bound,
      boundDoc: `Limit ${bounds(head.members)}`,
    }),
    declarePattern(names.run, {
      entity: window.entity.name,
      graphql: field(window).map((f) => `${f}(after)`),
      index: 'table',
      operation: 'Query',
      keyCondition: `PK = ${pk}, begins_with(SK, ${window.prefix}…), from a cursor`,
      order: 'newest first',
      bound: ({ first }: Window) => first + 1,
      boundDoc: 'Limit first + 1',
    }),
  ];
}
