/**
 * Per-request loaders over item collections. Created by the context factory for each GraphQL
 * operation and never shared between operations, so a memo never outlives one consistent picture.
 *
 * `customers.load({ customerId, need })` answers what one field wants of a customer's collection.
 * Every load made in one tick is one batch: the needs of each customer are merged, the part not
 * already known is planned (`planCollection`) and all customers' Queries go out together, one
 * wave. Customers for whom only the profile is wanted share one BatchGetItem instead. What comes
 * back is memoised per customer for the rest of the request, so aliases, fragments and later
 * fields that ask again cost nothing.
 *
 * `orders.load(orderId)` reads an order's collection (header and lines) in one Query; the orders
 * of one tick go out together.
 */
import DataLoader from 'dataloader';
import type { Table } from '../dynamo/table';
import {
  absorb,
  customerProfiles,
  emptyState,
  isProfileOnly,
  isSatisfied,
  mergeNeeds,
  missingPart,
  orderDetail,
  pageOf,
  planCollection,
  NEWEST_RUN,
  runPlannedQuery,
  type AddressRecord,
  type CollectionNeed,
  type CollectionState,
  type CustomerRecord,
  type OrderPage,
  type OrderRecord,
} from '../model';

export interface CollectionRequest {
  customerId: string;
  need: CollectionNeed;
}

/** A customer as one field asked for it; null when there is no such customer. */
export interface CustomerView {
  profile: CustomerRecord | undefined;
  addresses: AddressRecord[] | undefined;
  /** The page of each window of the need, in the need's order. */
  pages: OrderPage[];
}

export interface Loaders {
  customers: DataLoader<CollectionRequest, CustomerView | null>;
  orders: DataLoader<string, OrderRecord | null>;
  /** What is known of each customer collection in this request. */
  states: Map<string, CollectionState>;
}

export function createLoaders(table: Table): Loaders {
  const states = new Map<string, CollectionState>();
  const stateOf = (customerId: string) => {
    let state = states.get(customerId);
    if (!state) states.set(customerId, (state = emptyState()));
    return state;
  };
  const customers = new DataLoader<CollectionRequest, CustomerView | null>(
    (requests) => loadCollections(table, stateOf, requests),
    { cache: false },
  );
  const orders = new DataLoader<string, OrderRecord | null>(
    (orderIds) => Promise.all(orderIds.map(async (orderId) => (await orderDetail(table, orderId)) ?? null)),
  );
  return { customers, orders, states };
}

/**
 * Records what a mutation just wrote, so its response fields are answered without a read: a new
 * customer has no addresses and no orders; a new order's header and lines are known.
 */
export function primeNewCustomer(loaders: Loaders, customer: CustomerRecord): void {
  const state = emptyState();
  state.exists = true;
  state.profile = customer;
  state.addresses = [];
  state.runs.set(NEWEST_RUN, { orders: [], complete: true });
  loaders.states.set(customer.id, state);
}

/** Records a profile just read or written (existence included). */
export function primeProfile(loaders: Loaders, customer: CustomerRecord): void {
  let state = loaders.states.get(customer.id);
  if (!state) loaders.states.set(customer.id, (state = emptyState()));
  state.exists = true;
  state.profile = customer;
}

export function primeOrder(loaders: Loaders, order: OrderRecord): void {
  loaders.orders.clear(order.id).prime(order.id, order);
}

/** The batch function: answers every request in order, one wave (two when existence is unknown). */
async function loadCollections(
  table: Table,
  stateOf: (customerId: string) => CollectionState,
  requests: readonly CollectionRequest[],
): Promise<Array<CustomerView | null | Error>> {
  const byCustomer = new Map<string, CollectionNeed[]>();
  for (const { customerId, need } of requests) byCustomer.set(customerId, [...(byCustomer.get(customerId) ?? []), need]);

  const failures = new Map<string, Error>();
  const profileOnly: string[] = [];
  const queries: Array<Promise<void>> = [];
  for (const [customerId, needs] of byCustomer) {
    const state = stateOf(customerId);
    const missing = missingPart(mergeNeeds(needs), state);
    if (isProfileOnly(missing)) {
      if (missing.profile || state.exists === undefined) profileOnly.push(customerId);
      continue;
    }
    for (const query of planCollection(customerId, missing)) {
      queries.push(runPlannedQuery(table, query).then(
        ({ items, complete }) => absorb(state, query, items, complete),
        (error: Error) => { failures.set(customerId, error); },
      ));
    }
  }
  queries.push(loadProfiles(table, stateOf, profileOnly).catch((error: Error) => {
    for (const customerId of profileOnly) failures.set(customerId, error);
  }));
  await Promise.all(queries);

  // Windows that returned nothing cannot tell whether the customer exists: ask its profile.
  const unknown = [...byCustomer.keys()].filter((id) => !failures.has(id) && stateOf(id).exists === undefined);
  await loadProfiles(table, stateOf, unknown).catch((error: Error) => {
    for (const customerId of unknown) failures.set(customerId, error);
  });

  return requests.map(({ customerId, need }) => {
    const failure = failures.get(customerId);
    if (failure) return failure;
    const state = stateOf(customerId);
    if (state.exists === false) return null;
    if (!isSatisfied(need, state)) return new Error(`collection of customer ${customerId} was read but does not answer the need`);
    return {
      profile: state.profile,
      addresses: state.addresses,
      pages: need.windows.map((window) => pageOf(customerId, state, window)),
    };
  });
}

/** Records the profiles of customers (the `customerProfiles` pattern), and whether each exists. */
async function loadProfiles(table: Table, stateOf: (customerId: string) => CollectionState, customerIds: readonly string[]): Promise<void> {
  const found = await customerProfiles(table, customerIds);
  for (const customerId of customerIds) {
    const state = stateOf(customerId);
    const profile = found.get(customerId);
    state.exists = profile !== undefined;
    state.profile = profile;
  }
}
