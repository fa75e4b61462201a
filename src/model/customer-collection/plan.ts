/**
 * Planning reads of an item collection, apart from sending them (as DynamoDB-Toolbox separates
 * `params()` from `send()`): `planReads` returns the Query inputs it would send, so request
 * budgets are unit-testable without an engine (test/model/collection-plan.test.ts). Key
 * conditions, orders, `Limit`s and the patterns' names and bounds are derived from the
 * collection's declaration (declaration.ts); docs/access-patterns.md shows the customer
 * collection's, built by `collectionRequests` below.
 */
import type { QueryInput } from '../../dynamo/paging';
import { batchGetRequest, declarePattern, getRequest, queryRequest, type AccessPattern, type QueryRequest } from '../declare';
import { EXAMPLE_ID } from '../keys';
import { wants, type AnyNeed, type CollectionDeclaration, type CollectionMember, type WindowLike } from './declaration';
import { customerCollection, type CollectionNeed } from './members';
import type { OrderWindow } from './window';

export { wants, type AnyNeed, type NeedOf } from './declaration';

export type PlannedPattern = string;

/** One Query of a plan, and what its answer will tell. */
export interface PlannedQuery<W extends WindowLike = WindowLike> {
  pattern: PlannedPattern;
  /** Exactly what is sent (the Table adds the table name); its `Limit` is the most it reads in all. */
  input: QueryInput;
  /** The run whose items this Query reads, if any. */
  window: W | undefined;
  /** Whether the Query reads where the root sits (it meets the root item if there is one). */
  readsTop: boolean;
  /** The head members it reads whole. */
  reads: readonly string[];
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const singular = (text: string) => text.replace(/s$/, '');

/** `derive(collection)`, made once per declaration: what is derived from it serves every request. */
function oncePer<C extends object, T>(derive: (collection: C) => T): (collection: C) => T {
  const made = new WeakMap<C, T>();
  return (collection) => {
    let value = made.get(collection);
    if (value === undefined) made.set(collection, (value = derive(collection)));
    return value;
  };
}

/** The names of a collection's planned patterns (`customerScreen`, …), from its declaration. */
export const patternNames = oncePer(namesOf);

function namesOf(collection: CollectionDeclaration) {
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
 * The requests a collection's plans are made of, built from its declaration (the planner sends
 * them, `plannedPatterns` declares them): a descending Query from the top through the newest
 * window, one from a head member down through it, one exact member's key, the head ascending, and
 * a run of the window member. Every `Limit` is the declared bound of the members it passes plus
 * the window's `first + 1`, so a read is bounded whatever the data.
 */
export const collectionRequests = oncePer(requestsOf) as <W extends WindowLike>(
  collection: CollectionDeclaration<string, W>,
) => ReturnType<typeof requestsOf<W>>;

function requestsOf<W extends WindowLike>(collection: CollectionDeclaration<string, W>) {
  const { head, window } = collection;
  const below = (member: CollectionMember) => collection.boundAbove(window.name) - collection.boundAbove(member.name);
  return {
    screen: (id: string, first: number) =>
      queryRequest({
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': collection.pk(id) },
        ScanIndexForward: false,
        Limit: below(head.members[0]!) + first + 1,
      }),
    /** From `member` down: an exact member's key is the top of its range; a member with parts ends below the lowest key above it. */
    from: (member: CollectionMember, id: string, first: number) => {
      const value = member.exact ? `:${member.name}` : ':above';
      const bound = member.exact ? member.prefix : head.members[head.members.indexOf(member as never) - 1]!.prefix;
      return queryRequest({
        KeyConditionExpression: `PK = :pk AND SK ${member.exact ? '<=' : '<'} ${value}`,
        ExpressionAttributeValues: { ':pk': collection.pk(id), [value]: bound },
        ScanIndexForward: false,
        Limit: below(member) + first + 1,
      });
    },
    /** The head ascending, at most the sum of its bounds; or one exact member's key (`only`), Limit 1. */
    head: (id: string, only?: CollectionMember) =>
      only
        ? queryRequest({
            KeyConditionExpression: `PK = :pk AND SK = :${only.name}`,
            ExpressionAttributeValues: { ':pk': collection.pk(id), [`:${only.name}`]: only.prefix },
            Limit: 1,
          })
        : queryRequest({
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :head)',
            ExpressionAttributeValues: { ':pk': collection.pk(id), ':head': head.prefix },
            Limit: head.bound,
          }),
    /** The root items of several collections: one GetItem for one, else one BatchGetItem (100 keys a call). */
    roots: (ids: readonly string[], consistent: boolean) => {
      const keyOf = (id: string) => ({ PK: collection.pk(id), SK: collection.root.prefix });
      return ids.length === 1
        ? getRequest({ Key: keyOf(ids[0]!), ConsistentRead: consistent })
        : batchGetRequest(ids.map(keyOf), { consistent });
    },
    run: (id: string, run: W) =>
      queryRequest({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.pk(id), ':prefix': collection.runs.prefix(run) },
        ScanIndexForward: false,
        Limit: run.first + 1,
        ...(run.start ? { ExclusiveStartKey: run.start } : {}),
      }),
  };
}

/**
 * The Queries that answer `need` (already reduced to what is missing), all independent of each
 * other so they go out in one wave. The head rides with the newest window when there is one,
 * since it is adjacent to the newest end of the window member: a descending Query from the
 * topmost member wanted (the root at least, for existence). The cost estimate counts on their
 * `Limit`s (src/admission/cost.ts).
 */
export function planReads<W extends WindowLike>(
  collection: CollectionDeclaration<string, W>,
  id: string,
  need: AnyNeed,
): PlannedQuery<W>[] {
  const names = patternNames(collection);
  const build = collectionRequests(collection);
  const { head, root, runs } = collection;
  const wanted = head.members.filter((member) => wants(need, member.name));
  const plan: PlannedQuery<W>[] = [];
  const query = (pattern: string, { input }: QueryRequest, window: W | undefined, readsTop: boolean, reads: readonly CollectionMember[]) =>
    plan.push({ pattern, input, window, readsTop, reads: reads.map((member) => member.name) });
  const windows = need.windows as W[];
  const newest = windows.find((window) => runs.newest(window));
  if (newest) {
    // Descending from the topmost member wanted (the root at least) through the newest window.
    const top = head.members.find((member) => member === root || wants(need, member.name))!;
    const reads = head.members.slice(head.members.indexOf(top));
    if (top === head.members[0]) query(names.screen, build.screen(id, newest.first), newest, true, reads);
    else query(names.from(top), build.from(top, id, newest.first), newest, true, reads);
  } else if (wanted.length === 1 && wanted[0]!.exact) {
    query(names.head, build.head(id, wanted[0]), undefined, wanted[0] === root, wanted);
  } else if (wanted.length > 0) {
    query(names.head, build.head(id), undefined, true, head.members);
  }
  for (const window of windows.filter((w) => !runs.newest(w))) query(names.run, build.run(id, window), window, false, []);
  return plan;
}

/** The Queries that answer one customer's `need`: `planReads` of the customer collection. */
export function planCollection(customerId: string, need: CollectionNeed): PlannedQuery<OrderWindow>[] {
  return planReads(customerCollection, customerId, need);
}

/**
 * The Queries a collection's plans may hold (`PlannedQuery.pattern`), declared with the builders
 * the planner sends, for the generated documentation and the bounds test; their bounds are the
 * built `Limit`s. `entity` names the head as documented, `graphql` the type the collection is served as.
 */
export function plannedPatterns(collection: CollectionDeclaration, entity: string, graphql: string): AccessPattern[] {
  const names = patternNames(collection);
  const build = collectionRequests(collection);
  const { head, root, window } = collection;
  const field = (member: CollectionMember) => (member.fields ?? []).map((f) => `${graphql}.${f}`);
  const byFirst = (first: number): [string, number] => [EXAMPLE_ID, first];
  const fromRoot = (id: string, first: number) => build.from(root, id, first);
  const run = (id: string, first: number) => build.run(id, { first, start: undefined } as WindowLike);
  return [
    declarePattern(names.screen, {
      entity,
      graphql: [...head.members.flatMap(field), ...field(window)],
      request: build.screen,
      example: byFirst(20),
      scale: { name: 'first', args: byFirst },
    }),
    declarePattern(names.from(root), {
      entity,
      graphql: [...field(root), ...field(window)],
      request: fromRoot,
      example: byFirst(20),
      scale: { name: 'first', args: byFirst },
    }),
    declarePattern(names.head, {
      entity,
      graphql: head.members.flatMap(field),
      request: (id: string) => build.head(id),
      example: [EXAMPLE_ID],
      note: `or \`SK = :${root.name}\`, Limit 1, for the ${root.name} alone`,
    }),
    declarePattern(names.run, {
      entity: window.entity.name,
      graphql: field(window).map((f) => `${f}(after)`),
      request: run,
      example: byFirst(20),
      scale: { name: 'first', args: byFirst },
      note: 'from a cursor: ExclusiveStartKey; a month: its prefix',
    }),
    declarePattern(`${collection.patterns}Profiles`, {
      entity,
      graphql: [...field(root), `Order.customer`, 'Query.nodes'],
      request: (ids: readonly string[]) => build.roots(ids, false),
      example: [[EXAMPLE_ID, EXAMPLE_ID.replace(/.$/, 'Y')]],
      scale: { name: 'ids', args: (n: number) => [Array.from({ length: n }, () => EXAMPLE_ID)] as [string[]] },
      note: 'the roots of collections wanted for their root alone; UnprocessedKeys retried',
    }),
  ];
}
