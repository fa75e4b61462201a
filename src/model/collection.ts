/**
 * The customer's item collection, read as whole screens.
 *
 * | pattern                | index | key condition (PK = CUSTOMER#<id>)                 | order   | Limit            |
 * | ---------------------- | ----- | -------------------------------------------------- | ------- | ---------------- |
 * | customerScreen         | table | (none): addresses, profile, newest orders          | desc    | 1 + 10 + N + 1   |
 * | customerProfileOrders  | table | SK <= PROFILE: profile, newest orders              | desc    | 1 + N + 1        |
 * | customerHead           | table | begins_with(SK, PROFILE) or SK = PROFILE           | —       | —                |
 * | customerOrderWindow    | table | begins_with(SK, ORDER#[YYYY-MM]) from a cursor     | desc    | N + 1            |
 * | customerProfiles       | table | BatchGetItem of PK/SK = PROFILE, 100 keys a call   | —       | —                |
 *
 * A `CollectionNeed` says what an operation wants of one collection; `planCollection` turns the
 * part of it not already known into the fewest Queries (one, when the wants are adjacent at the
 * newest end; otherwise one per non-adjacent run, all sent in the same wave), and `absorb` splits
 * the returned items by sort-key prefix into a `CollectionState`. Reads are bounded by `Limit`
 * however many orders the customer has.
 */
import type { Item, Key, Table } from '../dynamo/table';
import { queryAll } from '../dynamo/paging';
import { addressFromItem, ADDRESS_PREFIX, MAX_ADDRESSES, type AddressRecord } from './address';
import { customerFromItem, customerKeys, customerProfile, PROFILE_SK, type CustomerRecord } from './customer';
import { checkFirst, decodeCursor, encodeCursor, orderPage, type OrderPage } from './cursor';
import { badInput } from './errors';
import { declarePattern, type AccessPattern } from './declare';
import { orderSummaryEntity } from './entities';
import { ORDER_PREFIX, orderFromItem, orderKeys, type OrderRecord } from './order';

/** The Queries a plan may hold (`PlannedQuery.pattern`) and the profiles BatchGetItem; bounds take the window's `first`. */
type Window = { first: number };
export const collectionPatterns: readonly AccessPattern[] = [
  declarePattern('customerScreen', { entity: 'Customer profile', graphql: ['Query.customer', 'Customer.addresses', 'Customer.orders'], index: 'table', operation: 'Query', keyCondition: 'PK = CUSTOMER#<id>', order: 'newest first', bound: ({ first }: Window) => 1 + MAX_ADDRESSES + first + 1, boundDoc: 'Limit 1 + 10 + first + 1' }),
  declarePattern('customerProfileOrders', { entity: 'Customer profile', graphql: ['Query.customer', 'Customer.orders'], index: 'table', operation: 'Query', keyCondition: 'PK = CUSTOMER#<id>, SK <= PROFILE', order: 'newest first', bound: ({ first }: Window) => 1 + first + 1, boundDoc: 'Limit 1 + first + 1' }),
  declarePattern('customerHead', { entity: 'Customer profile', graphql: ['Query.customer', 'Customer.addresses'], index: 'table', operation: 'Query', keyCondition: 'PK = CUSTOMER#<id>, begins_with(SK, PROFILE) or SK = PROFILE', order: '—', bound: () => 1 + MAX_ADDRESSES, boundDoc: 'Limit 1 + 10' }),
  declarePattern('customerOrderWindow', { entity: 'Order summary', graphql: ['Customer.orders(month, after)'], index: 'table', operation: 'Query', keyCondition: 'PK = CUSTOMER#<id>, begins_with(SK, ORDER#[YYYY-MM]), from a cursor', order: 'newest first', bound: ({ first }: Window) => first + 1, boundDoc: 'Limit first + 1' }),
  declarePattern('customerProfiles', { entity: 'Customer profile', graphql: ['Order.customer', 'Customer.name'], index: 'table', operation: 'BatchGetItem', keyCondition: 'PK = CUSTOMER#<id>, SK = PROFILE, 100 keys a call, UnprocessedKeys retried', order: '—', bound: (customerIds: readonly string[]) => customerIds.length, boundDoc: '1 item a key' }),
];

export interface OrderWindowArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  month?: string | null | undefined;
}

/** A validated window: where the run starts (`month`, `start`) and how much of it is wanted. */
export interface OrderWindow {
  first: number;
  month: string | undefined;
  /** The key the page starts after (exclusive), from a cursor. */
  start: Key | undefined;
}

export interface CollectionNeed {
  profile: boolean;
  addresses: boolean;
  windows: OrderWindow[];
}

/** What is known of one customer's collection so far in a request. */
export interface CollectionState {
  /** undefined: not known yet. */
  exists: boolean | undefined;
  profile: CustomerRecord | undefined;
  addresses: AddressRecord[] | undefined;
  /** Orders read from the start of a run (see `runKey`), newest first; `complete` when the run ended. */
  runs: Map<string, { orders: OrderRecord[]; complete: boolean }>;
}

export function emptyState(): CollectionState {
  return { exists: undefined, profile: undefined, addresses: undefined, runs: new Map() };
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * Validates `orders(first, after, month)` of one customer: first 1..100, month YYYY-MM, and a
 * cursor made for this customer's list (and month). Throws BAD_USER_INPUT before any request.
 */
export function checkOrderWindow(customerId: string, args: OrderWindowArgs): OrderWindow {
  const first = checkFirst(args.first);
  const month = args.month == null ? undefined : args.month;
  if (month !== undefined && !MONTH.test(month)) throw badInput('month must be a month such as 2026-09', 'month');
  const start = args.after == null ? undefined : decodeOrderCursor(customerId, month, args.after);
  return { first, month, start };
}

function cursorScope(customerId: string, month: string | undefined): string {
  return `orders:${customerId}:${month ?? '*'}`;
}

function decodeOrderCursor(customerId: string, month: string | undefined, cursor: string): Key {
  // The key of one of this customer's order summaries, of that month: the summary's declared shape.
  const key = decodeCursor(cursor, cursorScope(customerId, month), (k) =>
    Object.keys(k).length === 2 && orderSummaryEntity.parseKey(k)?.customerId === customerId && k.SK!.startsWith(orderKeys.summaryPrefix(month)));
  return { PK: key.PK as string, SK: key.SK as string };
}

/** Runs are identified by where they start; windows of one run differ only in how far they reach. */
function runKey(window: Pick<OrderWindow, 'month' | 'start'>): string {
  return `${window.month ?? '*'}|${window.start?.SK ?? ''}`;
}

/** The run of a customer's newest orders, from the top of the collection. */
export const NEWEST_RUN = runKey({ month: undefined, start: undefined });

function isNewest(window: OrderWindow): boolean {
  return window.month === undefined && window.start === undefined;
}

/** Merges the needs of one collection: the union of parts, the widest window of each run. */
export function mergeNeeds(needs: readonly CollectionNeed[]): CollectionNeed {
  const widest = new Map<string, OrderWindow>();
  for (const window of needs.flatMap((need) => need.windows)) {
    const known = widest.get(runKey(window));
    if (!known || known.first < window.first) widest.set(runKey(window), window);
  }
  return {
    profile: needs.some((need) => need.profile),
    addresses: needs.some((need) => need.addresses),
    windows: [...widest.values()],
  };
}

/** The part of `need` that `state` cannot answer yet. Existence is always wanted. */
export function missingPart(need: CollectionNeed, state: CollectionState): CollectionNeed {
  if (state.exists === false) return { profile: false, addresses: false, windows: [] };
  return {
    profile: need.profile && state.profile === undefined,
    addresses: need.addresses && state.addresses === undefined,
    windows: need.windows.filter((window) => {
      const run = state.runs.get(runKey(window));
      return !run || (!run.complete && run.orders.length <= window.first);
    }),
  };
}

export function isSatisfied(need: CollectionNeed, state: CollectionState): boolean {
  const missing = missingPart(need, state);
  return state.exists !== undefined && !missing.profile && !missing.addresses && missing.windows.length === 0;
}

/** Whether the need is the profile alone, which a BatchGetItem across customers serves best. */
export function isProfileOnly(need: CollectionNeed): boolean {
  return !need.addresses && need.windows.length === 0;
}

/** One Query of a plan, and what its answer will tell. */
export interface PlannedQuery {
  pattern: 'customerScreen' | 'customerProfileOrders' | 'customerHead' | 'customerOrderWindow';
  input: Parameters<Table['query']>[0];
  limit: number | undefined;
  /** The run whose orders this Query reads, if any. */
  window: OrderWindow | undefined;
  /** Whether the Query starts at the top of the collection, so a missing profile means no customer. */
  readsTop: boolean;
  /** Whether the Query reads every address (they sit at the top, above the profile). */
  readsAddresses: boolean;
}

/**
 * The Queries that answer `need` (already reduced to what is missing), all independent of each
 * other so they go out in one wave. The head (profile, addresses) rides with the newest-orders
 * window when there is one, since they are adjacent at the newest end of the collection.
 */
export function planCollection(customerId: string, need: CollectionNeed): PlannedQuery[] {
  const pk = customerKeys.pk(customerId);
  const plan: PlannedQuery[] = [];
  const newest = need.windows.find(isNewest);
  if (newest) {
    if (need.addresses) {
      const limit = 1 + MAX_ADDRESSES + newest.first + 1;
      plan.push({
        pattern: 'customerScreen',
        input: { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ScanIndexForward: false, Limit: limit },
        limit, window: newest, readsTop: true, readsAddresses: true,
      });
    } else {
      const limit = 1 + newest.first + 1;
      plan.push({
        pattern: 'customerProfileOrders',
        input: { KeyConditionExpression: 'PK = :pk AND SK <= :profile', ExpressionAttributeValues: { ':pk': pk, ':profile': PROFILE_SK }, ScanIndexForward: false, Limit: limit },
        limit, window: newest, readsTop: true, readsAddresses: false,
      });
    }
  } else if (need.profile || need.addresses) {
    // The profile sorts first, then at most MAX_ADDRESSES addresses: the Limit makes that bound
    // hold whatever the data (the cost estimate counts on it, src/cost.ts).
    const limit = need.addresses ? 1 + MAX_ADDRESSES : 1;
    plan.push({
      pattern: 'customerHead',
      input: need.addresses
        ? { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :profile)', ExpressionAttributeValues: { ':pk': pk, ':profile': PROFILE_SK }, Limit: limit }
        : { KeyConditionExpression: 'PK = :pk AND SK = :profile', ExpressionAttributeValues: { ':pk': pk, ':profile': PROFILE_SK }, Limit: limit },
      limit, window: undefined, readsTop: true, readsAddresses: need.addresses,
    });
  }
  for (const window of need.windows.filter((w) => !isNewest(w))) {
    const limit = window.first + 1;
    plan.push({
      pattern: 'customerOrderWindow',
      input: {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': orderKeys.summaryPrefix(window.month) },
        ScanIndexForward: false,
        Limit: limit,
        ...(window.start ? { ExclusiveStartKey: window.start } : {}),
      },
      limit, window, readsTop: false, readsAddresses: false,
    });
  }
  return plan;
}

/**
 * Sends one planned Query, following `LastEvaluatedKey` while a page stopped short of the
 * planned `Limit` (DynamoDB cuts pages at 1 MB). `complete` tells whether the range was exhausted.
 */
export async function runPlannedQuery(table: Table, query: PlannedQuery): Promise<{ items: Item[]; complete: boolean }> {
  const { items, complete } = await queryAll(table, query.input, { limit: query.limit });
  return { items, complete };
}

/** Splits a planned Query's items by sort-key prefix into `state`. */
export function absorb(state: CollectionState, query: PlannedQuery, items: readonly Item[], complete: boolean): void {
  const profileItem = items.find((item) => item.SK === PROFILE_SK);
  if (profileItem) {
    state.profile = customerFromItem(profileItem);
    state.exists = true;
  } else if (query.readsTop) {
    state.exists = false;
  }
  if (query.readsAddresses) {
    state.addresses = items
      .filter((item) => typeof item.SK === 'string' && item.SK.startsWith(ADDRESS_PREFIX))
      .map(addressFromItem)
      .sort((a, b) => a.label.localeCompare(b.label));
  }
  if (query.window) {
    const orders = items.filter((item) => typeof item.SK === 'string' && item.SK.startsWith(ORDER_PREFIX)).map(orderFromItem);
    if (orders.length > 0) state.exists = true;
    state.runs.set(runKey(query.window), { orders, complete });
  }
}

/** The page a window asks for, from what `state` holds (the caller made sure it holds enough). */
export function pageOf(customerId: string, state: CollectionState, window: OrderWindow): OrderPage {
  const run = state.runs.get(runKey(window)) ?? { orders: [], complete: true };
  const orders = run.orders.slice(0, window.first);
  const scope = cursorScope(customerId, window.month);
  return orderPage(orders, run.orders.length > window.first, () => orders.map((order) => encodeCursor(scope, orderKeys.summary(order))));
}

/**
 * customerProfiles: the profiles of several customers, by id; a missing customer is absent from
 * the map. One GetItem for one customer, else BatchGetItem (100 keys a call, UnprocessedKeys retried).
 */
export async function customerProfiles(table: Table, customerIds: readonly string[]): Promise<Map<string, CustomerRecord>> {
  if (customerIds.length === 0) return new Map();
  if (customerIds.length === 1) {
    const profile = await customerProfile(table, customerIds[0] as string);
    return new Map(profile ? [[profile.id, profile]] : []);
  }
  const items = await table.batchGet(customerIds.map(customerKeys.profile));
  return new Map(items.map((item) => [String(item.id), customerFromItem(item)]));
}
