/**
 * How an access pattern is declared: as the request it builds. A pattern is one object whose
 * `request` builds exactly what is sent (the Query, GetItem, BatchGetItem keys or transaction
 * action, `Limit` included), as DynamoDB-Toolbox's `params()` or ElectroDB's; the function that
 * runs it sends what the builder built. Its index, operation and order are read off the built
 * request, its bound is the built requests' `Limit`s (or keys), and docs/access-patterns.md shows
 * the built expressions (pattern-doc.ts renders them from the declared `example`). Only a pattern
 * of several dependent requests states its `bound`, computed from the numbers its Limits are.
 */
import type { Key, Table, TransactAction } from '../dynamo/table';
import { queryAll, type QueryAllResult, type QueryInput } from '../dynamo/paging';

/** A GetItem as the Table is given it (it adds the table name). */
export interface GetInput {
  Key: Key;
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

/**
 * One request exactly as a pattern hands it to the Table (which adds the table name and asks for
 * the consumed capacity): the pattern's function sends this object, and its documentation, its
 * index, operation and order, and its bound are computed from it. A Query's `Limit` is the most
 * items it reads in all, also when a 1 MB page is continued (`queryAll` asks each page for what is
 * left of it).
 */
export type PatternRequest =
  | { kind: 'Query'; input: QueryInput }
  | { kind: 'GetItem'; input: GetInput }
  | { kind: 'BatchGetItem'; keys: Key[]; consistent: boolean }
  | { kind: 'TransactWriteItems'; actions: TransactAction[] };

export type QueryRequest = Extract<PatternRequest, { kind: 'Query' }>;
export type GetRequest = Extract<PatternRequest, { kind: 'GetItem' }>;
export type BatchGetRequest = Extract<PatternRequest, { kind: 'BatchGetItem' }>;
export type TransactRequest = Extract<PatternRequest, { kind: 'TransactWriteItems' }>;
/** What one builder call returns: one request, or requests sent together in one wave. */
export type Built = PatternRequest | readonly PatternRequest[];

export const queryRequest = (input: QueryInput): QueryRequest => ({ kind: 'Query', input });

/**
 * Sends a pattern's Query: followed along `LastEvaluatedKey` past 1 MB pages, and never past its
 * `Limit` in all (each page asks for what is left of it), so the Limit is the bound it declares.
 */
export function sendQuery(table: Table, input: QueryInput): Promise<QueryAllResult> {
  return queryAll(table, input, { limit: input.Limit });
}
export const getRequest = (input: GetInput): GetRequest => ({ kind: 'GetItem', input });
/** BatchGetItem of distinct keys (the bound counts one item a key). */
export const batchGetRequest = (keys: Key[], options: { consistent: boolean }): BatchGetRequest => ({
  kind: 'BatchGetItem',
  keys,
  consistent: options.consistent,
});
export const transactRequest = (actions: TransactAction[]): TransactRequest => ({ kind: 'TransactWriteItems', actions });

/** The requests of a builder's answer, as a list. */
export function requestsOf(built: Built): readonly PatternRequest[] {
  return Array.isArray(built) ? built : [built as PatternRequest];
}

/**
 * The most items one request reads, from the request alone: a Query its `Limit` (a Query a bound
 * is derived from must carry one), a GetItem 1, a BatchGetItem one a key, a transaction the items
 * its cancellation can return (the actions asking for ALL_OLD).
 */
export function readsOf(request: PatternRequest): number {
  switch (request.kind) {
    case 'Query':
      if (request.input.Limit === undefined)
        throw new Error(`a Query without a Limit has no bound: ${request.input.KeyConditionExpression}`);
      return request.input.Limit;
    case 'GetItem':
      return 1;
    case 'BatchGetItem':
      return request.keys.length;
    case 'TransactWriteItems':
      return request.actions.filter((action) => Object.values(action)[0]?.ReturnValuesOnConditionCheckFailure === 'ALL_OLD').length;
  }
}

/** The argument a bound grows with, if any: its name (`first`) and the call's arguments at a value of it. */
export interface PatternScale<A extends unknown[]> {
  name: string;
  args(value: number): A;
}

interface PatternBase<A extends unknown[], B extends unknown[], R extends Built> {
  /** The entity it reads (its collection head, for collection reads). */
  entity: string;
  /** GraphQL fields that use it. */
  graphql: string[];
  /** Builds what the pattern sends; the pattern's function sends exactly this. */
  request(...args: B): R;
  /** Arguments of `request` the documentation shows it built with (its values as key templates). */
  example: NoInfer<B>;
  /** How the bound grows with the call's arguments, for its documentation; absent: it does not. */
  scale?: PatternScale<NoInfer<A>>;
  /** What the built request does not say (when the pattern is sent, how requests follow each other). */
  note?: string;
}

/**
 * A pattern of one wave built by one `request` of the call's own arguments (the table aside): its
 * bound is the built requests' reads (`readsOf`), nothing declared beside them.
 */
export type OneWaveSpec<A extends unknown[], R extends Built> = PatternBase<A, A, R> & { bound?: never };

/**
 * A pattern that sends several requests, later ones built from what earlier ones returned (shards
 * read again, continuations): `request` builds each of them, from its own arguments, and `bound`
 * states the most items one call reads, from the call's arguments (table aside), computed from
 * the same numbers the requests' `Limit`s are. A method, so patterns of different arguments are
 * one `AccessPattern[]`.
 */
export type SeveralSpec<A extends unknown[], B extends unknown[], R extends Built> = PatternBase<A, B, R> & {
  bound(...args: A): number;
  note: string;
};

export type PatternOrder = 'newest first' | 'by sort key' | '—';

export interface AccessPattern<A extends unknown[] = unknown[]> {
  /** The pattern's name: the function's that runs it. */
  name: string;
  entity: string;
  graphql: string[];
  /** Derived from the example request's IndexName. */
  index: string;
  operation: PatternRequest['kind'];
  /** Derived from the example request's ScanIndexForward: Queries only. */
  order: PatternOrder;
  /** The most items one call reads, whatever the data, given the call's arguments (table aside). */
  bound(...args: A): number;
  /** Whether the pattern sends several requests one after another (an explicit `bound`). */
  several: boolean;
  /** Builds what the pattern sends. */
  request(...args: unknown[]): Built;
  /** The arguments `request` is documented with. */
  example: readonly unknown[];
  scale?: PatternScale<A>;
  note?: string;
}

/** A function that runs an access pattern (its first argument the table), carrying its declaration. */
export type PatternFunction<A extends unknown[], F extends (table: Table, ...args: A) => unknown> = F & {
  readonly pattern: AccessPattern<A>;
};

function declared<A extends unknown[]>(
  name: string,
  spec: PatternBase<A, unknown[], Built> & { bound?: (...args: A) => number },
): AccessPattern<A> {
  const first = requestsOf(spec.request(...spec.example))[0];
  if (!first) throw new Error(`access pattern ${name} builds no request from its example`);
  const input = first.kind === 'Query' ? first.input : undefined;
  const request = spec.request.bind(spec);
  return {
    name,
    entity: spec.entity,
    graphql: spec.graphql,
    index: input?.IndexName ?? 'table',
    operation: first.kind,
    order: input ? (input.ScanIndexForward === false ? 'newest first' : 'by sort key') : '—',
    bound: spec.bound ?? ((...args: A) => requestsOf(request(...args)).reduce((sum, r) => sum + readsOf(r), 0)),
    several: spec.bound !== undefined,
    request,
    example: spec.example,
    ...(spec.scale ? { scale: spec.scale } : {}),
    ...(spec.note ? { note: spec.note } : {}),
  };
}

/**
 * Declares the access pattern `fn` runs, on `fn` itself: its name is the function's, its requests
 * built by `spec.request` (which `fn` sends), its bound a function of the call's arguments (the
 * table aside). Returns `fn` with the declaration as `fn.pattern`.
 */
export function pattern<A extends unknown[], R extends Built, F extends (table: Table, ...args: A) => unknown>(
  spec: OneWaveSpec<A, R>,
  fn: F,
): PatternFunction<A, F>;
export function pattern<A extends unknown[], B extends unknown[], R extends Built, F extends (table: Table, ...args: A) => unknown>(
  spec: SeveralSpec<A, B, R>,
  fn: F,
): PatternFunction<A, F>;
export function pattern(spec: PatternBase<unknown[], unknown[], Built>, fn: (...args: never[]) => unknown) {
  if (!fn.name) throw new Error('an access pattern is a named function');
  return Object.assign(fn, { pattern: declared(fn.name, spec) });
}

/**
 * Declares a pattern that is not one function of its own: a request inside another operation (a
 * transaction's action) or a planned Query. Returns the declaration, its builder typed, so the
 * operation builds its request with it.
 */
export function declarePattern<A extends unknown[], R extends Built>(
  name: string,
  spec: OneWaveSpec<A, R>,
): Omit<AccessPattern<A>, 'request'> & { request(...args: A): R };
export function declarePattern<A extends unknown[]>(name: string, spec: PatternBase<A, unknown[], Built>): AccessPattern<A> {
  return declared(name, spec);
}
