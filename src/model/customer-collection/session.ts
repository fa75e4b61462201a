/**
 * The item collections of one request (the customer's: `CustomerCollections`): the one object that
 * owns what the request knows of each collection (privately: nothing else reads or writes that state) and turns what
 * fields want into reads. Its steps, each a method:
 *
 * - **want**: `window(customerId, args)` makes a field's order window (its cursor decoded once per
 *   customer and request); a `CollectionRequest` is one field's need of one customer;
 * - **plan**: `plan(requests)` merges the needs of a batch per customer and returns the requests
 *   it would send for the part not yet known (no I/O: request budgets are unit-testable);
 * - **absorb**: `load(requests)` sends a plan (every Query and the profiles BatchGetItem in one
 *   wave), splits the answers into the state, and plans again only for what the first wave could
 *   not tell (a month without orders cannot tell whether the customer exists: its profile is read
 *   in a second wave; data over a declared bound, see state.ts, has its orders read again);
 * - **page**: `known(customerId, need)` answers a need from the state without a read, so a child
 *   field whose parent's look-ahead already read its part costs no batch and no promise.
 *
 * Batching across fields is DataLoader's (src/loaders), which calls `load` once per tick.
 *
 * **Consistency.** Reads are eventually consistent unless a request asks for an `exact` customer
 * (a screen that must show the customer's own writes: `me`, `customer`): every read of that
 * customer in this request then carries `ConsistentRead` (same requests, twice the read
 * capacity; a profiles BatchGetItem holding one exact key is consistent whole, so mixing never
 * costs a request). A request whose customer is `proven` to exist (an order names it, a parent
 * field found it) that an eventual read found missing is read once more with `ConsistentRead`,
 * in one more wave only in that rare case (a replica behind the write), instead of failing.
 */
import type { Table } from '../../dynamo/table';
import type { Item } from '../../dynamo/types';
import { customerFromItem, type CustomerRecord } from '../entity/customer';
import type { CollectionDeclaration, WindowLike } from './declaration';
import { customerCollection, type CollectionNeed, type CustomerView } from './members';
import { sendQuery } from '../declare';
import { collectionRequests, isRootOnly, mergeNeeds, planReads, wants, type AnyNeed, type PlannedQuery } from './plan';
import { absorb, emptyState, isSatisfied, missingPart, pageOf, type CollectionAnomaly, type CollectionState } from './state';
import { windowFor, type CheckedWindowArgs, type OrderWindow } from './window';

export interface CollectionRequest<N extends AnyNeed = CollectionNeed> {
  /** The collection's id (the customer's). */
  customerId: string;
  need: N;
  /** The screen must be exact: read this collection with ConsistentRead (for the rest of the request). */
  exact?: boolean;
  /** An invariant proves the collection exists: an eventual miss is read again strongly, not answered null. */
  proven?: boolean;
}

/**
 * A collection as one field asked for it (null when there is none): each head member's records
 * under its name (the root's one record, or undefined), and the page of each window of the need.
 */
export type CollectionView = Record<string, unknown> & { pages: unknown[] };

/** What one round of a batch sends: Queries per collection and one roots read, all in one wave. */
export interface BatchPlan {
  queries: Array<{ customerId: string; query: PlannedQuery }>;
  /** Collections of which only the root (or existence) is wanted: one BatchGetItem (`customerProfiles`). */
  profiles: string[];
}

export interface CollectionsOptions {
  /** Told of data that breaks the collection's declaration (answered anyway); default: a process warning. */
  onAnomaly?: (anomaly: CollectionAnomaly) => void;
}

/** At most this many rounds (waves) per batch: the plan, then what its answers could not tell. */
const ROUNDS = 2;

export class Collections<N extends AnyNeed = AnyNeed, V extends object = CollectionView, W extends WindowLike = WindowLike> {
  readonly #collection: CollectionDeclaration<string, W>;
  readonly #table: Table;
  readonly #onAnomaly: (anomaly: CollectionAnomaly) => void;
  readonly #states = new Map<string, CollectionState>();
  /** Collections read with ConsistentRead in this request. */
  readonly #exact = new Set<string>();

  constructor(collection: CollectionDeclaration<string, W>, table: Table, options: CollectionsOptions = {}) {
    this.#collection = collection;
    this.#table = table;
    this.#onAnomaly = options.onAnomaly ?? ((anomaly) => process.emitWarning(anomaly.message, 'CollectionBoundWarning'));
  }

  /** The answer to `need` from what is known: undefined when something must be read first. */
  known(id: string, need: N, strengthen = false): V | null | undefined {
    const state = this.#states.get(id);
    if (!state) return undefined;
    // A proven (or exact) collection an eventual read found missing is read again, by `load`.
    if (state.exists === false) return strengthen && !this.#exact.has(id) ? undefined : null;
    return isSatisfied(this.#collection, need, state) ? this.#view(id, state, need) : undefined;
  }

  /** Records a root item's record just read or written (existence included). */
  knowRoot(id: string, record: unknown): void {
    const state = this.#stateOf(id);
    state.exists = true;
    state.members.set(this.#collection.root.name, [record]);
  }

  /** Records a collection just created: its root, no other member, an empty window. */
  knowNew(id: string, record: unknown): void {
    const state = emptyState();
    state.exists = true;
    for (const member of this.#collection.head.members) state.members.set(member.name, member === this.#collection.root ? [record] : []);
    state.runs.set(this.#collection.runs.top, { records: [], complete: true });
    this.#states.set(id, state);
  }

  /** The first round's requests for a batch, given what is known (sends nothing). */
  plan(requests: readonly CollectionRequest<N>[]): BatchPlan {
    return this.#plan(this.#merged(requests), new Set());
  }

  /** Answers every request of a batch, in order: one wave, two when the first cannot tell everything. */
  async load(requests: readonly CollectionRequest<N>[]): Promise<Array<V | null | Error>> {
    const needs = this.#merged(requests);
    const failures = new Map<string, Error>();
    const proven = new Set(requests.filter((request) => request.proven || request.exact).map((request) => request.customerId));
    this.#strengthenMisses(proven, failures);
    for (const { customerId, exact } of requests) if (exact) this.#exact.add(customerId);
    await this.#rounds(needs, failures);
    // An eventual read missed a collection that must exist: once more, strongly (rare: one more wave).
    if (this.#strengthenMisses(proven, failures)) await this.#rounds(needs, failures);
    return requests.map(({ customerId, need }) => {
      const failure = failures.get(customerId);
      if (failure) return failure;
      const state = this.#stateOf(customerId);
      if (state.exists === false) return null;
      if (!isSatisfied(this.#collection, need, state))
        return new Error(`collection ${this.#collection.pk(customerId)} was read but does not answer the need`);
      return this.#view(customerId, state, need);
    });
  }

  async #rounds(needs: ReadonlyMap<string, N>, failures: Map<string, Error>): Promise<void> {
    for (let round = 0; round < ROUNDS; round++) {
      const plan = this.#plan(needs, new Set(failures.keys()));
      if (plan.queries.length === 0 && plan.profiles.length === 0) break;
      await this.#send(plan, failures);
    }
  }

  /** Forgets what eventual reads said of proven collections they found missing; true when any was. */
  #strengthenMisses(proven: ReadonlySet<string>, failures: ReadonlyMap<string, Error>): boolean {
    let any = false;
    for (const id of proven) {
      if (failures.has(id) || this.#exact.has(id) || this.#states.get(id)?.exists !== false) continue;
      this.#states.set(id, emptyState());
      this.#exact.add(id);
      any = true;
    }
    return any;
  }

  #plan(needs: ReadonlyMap<string, N>, skip: ReadonlySet<string>): BatchPlan {
    const plan: BatchPlan = { queries: [], profiles: [] };
    for (const [id, need] of needs) {
      const state = this.#stateOf(id);
      if (skip.has(id) || state.exists === false) continue;
      const missing = missingPart(this.#collection, need, state);
      if (isRootOnly(this.#collection, missing)) {
        // A BatchGetItem across collections serves roots (and existence) best.
        if (wants(missing, this.#collection.root.name) || state.exists === undefined) plan.profiles.push(id);
        continue;
      }
      const exact = this.#exact.has(id);
      for (const query of planReads(this.#collection, id, missing))
        plan.queries.push({ customerId: id, query: exact ? strongly(query) : query });
    }
    return plan;
  }

  async #send(plan: BatchPlan, failures: Map<string, Error>): Promise<void> {
    const fail = (ids: readonly string[]) => (error: Error) => {
      for (const id of ids) failures.set(id, error);
    };
    // A failed read, or an answer that cannot be absorbed (corrupt data), fails its collection only.
    await Promise.all([
      ...plan.queries.map(({ customerId, query }) =>
        runPlannedQuery(this.#table, query)
          .then(({ items, complete }) => {
            for (const anomaly of absorb(this.#collection, customerId, this.#stateOf(customerId), query, items, complete))
              this.#onAnomaly(anomaly);
          })
          .catch(fail([customerId])),
      ),
      readRoots(
        this.#table,
        this.#collection,
        plan.profiles,
        plan.profiles.some((id) => this.#exact.has(id)),
      )
        .then((found) => {
          for (const id of plan.profiles) {
            const state = this.#stateOf(id);
            const item = found.get(id);
            state.exists = item !== undefined;
            state.members.set(this.#collection.root.name, item ? [this.#collection.root.read(item)] : []);
          }
        })
        .catch(fail(plan.profiles)),
    ]);
  }

  #merged(requests: readonly CollectionRequest<N>[]): Map<string, N> {
    const byId = new Map<string, N[]>();
    for (const { customerId, need } of requests) byId.set(customerId, [...(byId.get(customerId) ?? []), need]);
    return new Map([...byId].map(([id, needs]) => [id, mergeNeeds(this.#collection, needs)]));
  }

  #stateOf(id: string): CollectionState {
    let state = this.#states.get(id);
    if (!state) this.#states.set(id, (state = emptyState()));
    return state;
  }

  #view(id: string, state: CollectionState, need: N): V {
    const view: Record<string, unknown> = {};
    for (const member of this.#collection.head.members) {
      const records = state.members.get(member.name);
      view[member.name] = member === this.#collection.root ? records?.[0] : records;
    }
    view.pages = need.windows.map((window) => pageOf(this.#collection, id, state, window));
    return view as V;
  }
}

/**
 * The customer collections of one request: `Collections` of the customer collection (members.ts),
 * whose windows are order windows (their cursors decoded once per customer and request).
 */
export class CustomerCollections extends Collections<CollectionNeed, CustomerView, OrderWindow> {
  readonly #windows = new Map<string, OrderWindow>();

  constructor(table: Table, options: CollectionsOptions = {}) {
    super(customerCollection, table, options);
  }

  /** The window of checked `orders` arguments for one customer (its cursor decoded once per request). */
  window(customerId: string, args: CheckedWindowArgs): OrderWindow {
    const key = `${customerId}|${args.first}|${args.month ?? ''}|${args.after ?? ''}`;
    let window = this.#windows.get(key);
    if (!window) this.#windows.set(key, (window = windowFor(customerId, args)));
    return window;
  }

  /** Records a profile just read or written (existence included). */
  knowProfile(customer: CustomerRecord): void {
    this.knowRoot(customer.id, customer);
  }

  /** Records a customer just created: no addresses, no orders. */
  knowNewCustomer(customer: CustomerRecord): void {
    this.knowNew(customer.id, customer);
  }
}

/** The same Query, with ConsistentRead (one request still, twice the read capacity). */
function strongly<Q extends PlannedQuery>(query: Q): Q {
  return { ...query, input: { ...query.input, ConsistentRead: true } };
}

/**
 * Sends one planned Query, following `LastEvaluatedKey` while a page stopped short of the
 * planned `Limit` (DynamoDB cuts pages at 1 MB). `complete` tells whether the range was exhausted.
 */
export async function runPlannedQuery(table: Table, query: PlannedQuery): Promise<{ items: Item[]; complete: boolean }> {
  const { items, complete } = await sendQuery(table, query.input);
  return { items, complete };
}

/**
 * customerProfiles (of any collection: its root items): the root items of several collections, by
 * id; a missing one is absent from the map. One GetItem for one, else BatchGetItem (100 keys a
 * call, UnprocessedKeys retried); `consistent` reads them all with ConsistentRead.
 */
export async function readRoots(
  table: Table,
  collection: CollectionDeclaration<string, never>,
  ids: readonly string[],
  consistent = false,
): Promise<Map<string, Item>> {
  if (ids.length === 0) return new Map();
  const request = collectionRequests(collection).roots(ids, consistent);
  const items =
    request.kind === 'GetItem'
      ? [await table.get(request.input)].filter((item) => item !== undefined)
      : await table.batchGet(request.keys, { consistent });
  return new Map(items.map((item) => [collection.idOf(item.PK)!, item]));
}

/** customerProfiles: the profiles of several customers, by id (the customer collection's roots); a missing one is absent. */
export async function customerProfiles(
  table: Table,
  customerIds: readonly string[],
  consistent = false,
): Promise<Map<string, CustomerRecord>> {
  const items = await readRoots(table, customerCollection, customerIds, consistent);
  return new Map([...items].map(([id, item]) => [id, customerFromItem(item)]));
}
