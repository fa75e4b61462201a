/**
 * The customer collections of one request: the one object that owns what the request knows of
 * each customer's collection (privately: nothing else reads or writes that state) and turns what
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
import { queryAll } from '../../dynamo/paging';
import type { OrderPage } from '../cursor';
import type { AddressRecord } from '../entity/address';
import type { CustomerRecord } from '../entity/customer';
import { customerProfile, customerKeys, customerFromItem } from '../customer';
import { isProfileOnly, mergeNeeds, planCollection, type CollectionNeed, type PlannedQuery } from './plan';
import { absorb, emptyState, isSatisfied, missingPart, pageOf, type CollectionAnomaly, type CollectionState } from './state';
import { NEWEST_RUN, windowFor, type CheckedWindowArgs, type OrderWindow } from './window';

export interface CollectionRequest {
  customerId: string;
  need: CollectionNeed;
  /** The screen must be exact: read this customer with ConsistentRead (for the rest of the request). */
  exact?: boolean;
  /** An invariant proves the customer exists: an eventual miss is read again strongly, not answered null. */
  proven?: boolean;
}

/** A customer as one field asked for it; null when there is no such customer. */
export interface CustomerView {
  profile: CustomerRecord | undefined;
  addresses: AddressRecord[] | undefined;
  /** The page of each window of the need, in the need's order. */
  pages: OrderPage[];
}

/** What one round of a batch sends: Queries per customer and one profiles read, all in one wave. */
export interface BatchPlan {
  queries: Array<{ customerId: string; query: PlannedQuery }>;
  /** Customers for whom only the profile (or existence) is wanted: `customerProfiles`. */
  profiles: string[];
}

export interface CollectionsOptions {
  /** Told of data that breaks the collection's declaration (answered anyway); default: a process warning. */
  onAnomaly?: (anomaly: CollectionAnomaly) => void;
}

/** At most this many rounds (waves) per batch: the plan, then what its answers could not tell. */
const ROUNDS = 2;

export class CustomerCollections {
  readonly #table: Table;
  readonly #onAnomaly: (anomaly: CollectionAnomaly) => void;
  readonly #states = new Map<string, CollectionState>();
  readonly #windows = new Map<string, OrderWindow>();
  /** Customers read with ConsistentRead in this request. */
  readonly #exact = new Set<string>();

  constructor(table: Table, options: CollectionsOptions = {}) {
    this.#table = table;
    this.#onAnomaly = options.onAnomaly ?? ((anomaly) => process.emitWarning(anomaly.message, 'CollectionBoundWarning'));
  }

  /** The window of checked `orders` arguments for one customer (its cursor decoded once per request). */
  window(customerId: string, args: CheckedWindowArgs): OrderWindow {
    const key = `${customerId}|${args.first}|${args.month ?? ''}|${args.after ?? ''}`;
    let window = this.#windows.get(key);
    if (!window) this.#windows.set(key, (window = windowFor(customerId, args)));
    return window;
  }

  /** The answer to `need` from what is known: undefined when something must be read first. */
  known(customerId: string, need: CollectionNeed, strengthen = false): CustomerView | null | undefined {
    const state = this.#states.get(customerId);
    if (!state) return undefined;
    // A proven (or exact) customer an eventual read found missing is read again, by `load`.
    if (state.exists === false) return strengthen && !this.#exact.has(customerId) ? undefined : null;
    return isSatisfied(need, state) ? this.#view(customerId, state, need) : undefined;
  }

  /** Records a profile just read or written (existence included). */
  knowProfile(customer: CustomerRecord): void {
    const state = this.#stateOf(customer.id);
    state.exists = true;
    state.profile = customer;
  }

  /** Records a customer just created: no addresses, no orders. */
  knowNewCustomer(customer: CustomerRecord): void {
    const state = emptyState();
    state.exists = true;
    state.profile = customer;
    state.addresses = [];
    state.runs.set(NEWEST_RUN, { orders: [], complete: true });
    this.#states.set(customer.id, state);
  }

  /** The first round's requests for a batch, given what is known (sends nothing). */
  plan(requests: readonly CollectionRequest[]): BatchPlan {
    return this.#plan(mergedByCustomer(requests), new Set());
  }

  /** Answers every request of a batch, in order: one wave, two when the first cannot tell everything. */
  async load(requests: readonly CollectionRequest[]): Promise<Array<CustomerView | null | Error>> {
    const needs = mergedByCustomer(requests);
    const failures = new Map<string, Error>();
    const proven = new Set(requests.filter((request) => request.proven || request.exact).map((request) => request.customerId));
    this.#strengthenMisses(proven, failures);
    for (const { customerId, exact } of requests) if (exact) this.#exact.add(customerId);
    await this.#rounds(needs, failures);
    // An eventual read missed a customer that must exist: once more, strongly (rare: one more wave).
    if (this.#strengthenMisses(proven, failures)) await this.#rounds(needs, failures);
    return requests.map(({ customerId, need }) => {
      const failure = failures.get(customerId);
      if (failure) return failure;
      const state = this.#stateOf(customerId);
      if (state.exists === false) return null;
      if (!isSatisfied(need, state)) return new Error(`collection of customer ${customerId} was read but does not answer the need`);
      return this.#view(customerId, state, need);
    });
  }

  async #rounds(needs: ReadonlyMap<string, CollectionNeed>, failures: Map<string, Error>): Promise<void> {
    for (let round = 0; round < ROUNDS; round++) {
      const plan = this.#plan(needs, new Set(failures.keys()));
      if (plan.queries.length === 0 && plan.profiles.length === 0) break;
      await this.#send(plan, failures);
    }
  }

  /** Forgets what eventual reads said of proven customers they found missing; true when any was. */
  #strengthenMisses(proven: ReadonlySet<string>, failures: ReadonlyMap<string, Error>): boolean {
    let any = false;
    for (const customerId of proven) {
      if (failures.has(customerId) || this.#exact.has(customerId) || this.#states.get(customerId)?.exists !== false) continue;
      this.#states.set(customerId, emptyState());
      this.#exact.add(customerId);
      any = true;
    }
    return any;
  }

  #plan(needs: ReadonlyMap<string, CollectionNeed>, skip: ReadonlySet<string>): BatchPlan {
    const plan: BatchPlan = { queries: [], profiles: [] };
    for (const [customerId, need] of needs) {
      const state = this.#stateOf(customerId);
      if (skip.has(customerId) || state.exists === false) continue;
      const missing = missingPart(need, state);
      if (isProfileOnly(missing)) {
        // A BatchGetItem across customers serves profiles (and existence) best.
        if (missing.profile || state.exists === undefined) plan.profiles.push(customerId);
        continue;
      }
      const exact = this.#exact.has(customerId);
      for (const query of planCollection(customerId, missing)) plan.queries.push({ customerId, query: exact ? strongly(query) : query });
    }
    return plan;
  }

  async #send(plan: BatchPlan, failures: Map<string, Error>): Promise<void> {
    const fail = (customerIds: readonly string[]) => (error: Error) => {
      for (const customerId of customerIds) failures.set(customerId, error);
    };
    // A failed read, or an answer that cannot be absorbed (corrupt data), fails its customer only.
    await Promise.all([
      ...plan.queries.map(({ customerId, query }) =>
        runPlannedQuery(this.#table, query)
          .then(({ items, complete }) => {
            for (const anomaly of absorb(this.#stateOf(customerId), query, items, complete)) this.#onAnomaly(anomaly);
          })
          .catch(fail([customerId])),
      ),
      customerProfiles(
        this.#table,
        plan.profiles,
        plan.profiles.some((customerId) => this.#exact.has(customerId)),
      )
        .then((found) => {
          for (const customerId of plan.profiles) {
            const state = this.#stateOf(customerId);
            const profile = found.get(customerId);
            state.exists = profile !== undefined;
            state.profile = profile;
          }
        })
        .catch(fail(plan.profiles)),
    ]);
  }

  #stateOf(customerId: string): CollectionState {
    let state = this.#states.get(customerId);
    if (!state) this.#states.set(customerId, (state = emptyState()));
    return state;
  }

  #view(customerId: string, state: CollectionState, need: CollectionNeed): CustomerView {
    return { profile: state.profile, addresses: state.addresses, pages: need.windows.map((window) => pageOf(customerId, state, window)) };
  }
}

/** The same Query, with ConsistentRead (one request still, twice the read capacity). */
function strongly(query: PlannedQuery): PlannedQuery {
  return { ...query, input: { ...query.input, ConsistentRead: true } };
}

function mergedByCustomer(requests: readonly CollectionRequest[]): Map<string, CollectionNeed> {
  const byCustomer = new Map<string, CollectionNeed[]>();
  for (const { customerId, need } of requests) byCustomer.set(customerId, [...(byCustomer.get(customerId) ?? []), need]);
  return new Map([...byCustomer].map(([customerId, needs]) => [customerId, mergeNeeds(needs)]));
}

/**
 * Sends one planned Query, following `LastEvaluatedKey` while a page stopped short of the
 * planned `Limit` (DynamoDB cuts pages at 1 MB). `complete` tells whether the range was exhausted.
 */
export async function runPlannedQuery(
  table: Table,
  query: PlannedQuery,
): Promise<{ items: import('../../dynamo/types').Item[]; complete: boolean }> {
  const { items, complete } = await queryAll(table, query.input, { limit: query.limit });
  return { items, complete };
}

/**
 * customerProfiles: the profiles of several customers, by id; a missing customer is absent from
 * the map. One GetItem for one customer, else BatchGetItem (100 keys a call, UnprocessedKeys
 * retried); `consistent` reads them all with ConsistentRead.
 */
export async function customerProfiles(
  table: Table,
  customerIds: readonly string[],
  consistent = false,
): Promise<Map<string, CustomerRecord>> {
  if (customerIds.length === 0) return new Map();
  if (customerIds.length === 1) {
    const profile = await customerProfile(table, customerIds[0] as string, consistent);
    return new Map(profile ? [[profile.id, profile]] : []);
  }
  const items = await table.batchGet(customerIds.map(customerKeys.profile), { consistent });
  return new Map(items.map((item) => [String(item.id), customerFromItem(item)]));
}
