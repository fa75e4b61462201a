/**
 * Planning reads of the customer collection, apart from sending them (as DynamoDB-Toolbox
 * separates `params()` from `send()`): `planCollection` returns the Query inputs it would send, so
 * request budgets are unit-testable without an engine (test/model/collection-plan.test.ts).
 * Key conditions, orders and `Limit`s are derived from the collection's declaration (members.ts):
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
import { orderKeys } from '../order';
import { customerCollection } from './members';
import { isNewest, runKey, type OrderWindow } from './window';

/** What an operation wants of one customer's collection. Existence is always wanted. */
export interface CollectionNeed {
  profile: boolean;
  addresses: boolean;
  windows: OrderWindow[];
}

export type PlannedPattern = 'customerScreen' | 'customerProfileOrders' | 'customerHead' | 'customerOrderWindow';

/** One Query of a plan, and what its answer will tell. */
export interface PlannedQuery {
  pattern: PlannedPattern;
  /** Exactly what is sent (the Table adds the table name); `Limit` included. */
  input: QueryInput;
  limit: number;
  /** The run whose orders this Query reads, if any. */
  window: OrderWindow | undefined;
  /** Whether the Query starts at the top of what it reads of the head, so it meets the profile if there is one. */
  readsTop: boolean;
  /** Whether the Query reads every address (they sit at the top, above the profile). */
  readsAddresses: boolean;
}

const collection = customerCollection;
const profile = collection.member('profile');
const orders = collection.window;
/** Items a descending Query meets before the first order: every bounded member's bound. */
const HEAD_BOUND = collection.boundAbove('orders');
/** Items a descending Query from the profile meets before the first order. */
const PROFILE_TO_ORDERS = HEAD_BOUND - collection.boundAbove('profile');
/** The head's bounds, bottom up (`1 + 10`): how the Limits are documented. */
const HEAD_DOC = collection.head.members
  .map((m) => String(m.bound))
  .reverse()
  .join(' + ');

type Window = { first: number };
/** The Queries a plan may hold (`PlannedQuery.pattern`); bounds take the window's `first`. */
export const plannedPatterns: readonly AccessPattern[] = [
  declarePattern('customerScreen', {
    entity: 'Customer profile',
    graphql: ['Query.customer', 'Query.node(s)', 'Customer.addresses', 'Customer.orders'],
    index: 'table',
    operation: 'Query',
    keyCondition: 'PK = CUSTOMER#<id>',
    order: 'newest first',
    bound: ({ first }: Window) => HEAD_BOUND + first + 1,
    boundDoc: `Limit ${HEAD_DOC} + first + 1`,
  }),
  declarePattern('customerProfileOrders', {
    entity: 'Customer profile',
    graphql: ['Query.customer', 'Query.node(s)', 'Customer.orders'],
    index: 'table',
    operation: 'Query',
    keyCondition: `PK = CUSTOMER#<id>, SK <= ${profile.prefix}`,
    order: 'newest first',
    bound: ({ first }: Window) => PROFILE_TO_ORDERS + first + 1,
    boundDoc: `Limit ${PROFILE_TO_ORDERS} + first + 1`,
  }),
  declarePattern('customerHead', {
    entity: 'Customer profile',
    graphql: ['Query.customer', 'Query.node(s)', 'Customer.addresses'],
    index: 'table',
    operation: 'Query',
    keyCondition: `PK = CUSTOMER#<id>, begins_with(SK, ${collection.head.prefix}) or SK = ${profile.prefix}`,
    order: '—',
    bound: () => collection.head.bound,
    boundDoc: `Limit ${HEAD_DOC}`,
  }),
  declarePattern('customerOrderWindow', {
    entity: 'Order summary',
    graphql: ['Customer.orders(month, after)'],
    index: 'table',
    operation: 'Query',
    keyCondition: 'PK = CUSTOMER#<id>, begins_with(SK, ORDER#[YYYY-MM]), from a cursor',
    order: 'newest first',
    bound: ({ first }: Window) => first + 1,
    boundDoc: 'Limit first + 1',
  }),
];

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

/** Whether the need is the profile alone, which a BatchGetItem across customers serves best. */
export function isProfileOnly(need: CollectionNeed): boolean {
  return !need.addresses && need.windows.length === 0;
}

/**
 * The Queries that answer `need` (already reduced to what is missing), all independent of each
 * other so they go out in one wave. The head (profile, addresses) rides with the newest-orders
 * window when there is one, since they are adjacent at the newest end of the collection. Every
 * `Limit` is the declared bound of the members it passes plus the window's `first + 1`, so a read
 * is bounded whatever the data (the cost estimate counts on it, src/admission/cost.ts).
 */
export function planCollection(customerId: string, need: CollectionNeed): PlannedQuery[] {
  const pk = collection.pk(customerId);
  const plan: PlannedQuery[] = [];
  const newest = need.windows.find(isNewest);
  const query = (
    pattern: PlannedPattern,
    input: QueryInput,
    window: OrderWindow | undefined,
    readsTop: boolean,
    readsAddresses: boolean,
  ): PlannedQuery => ({ pattern, input, limit: input.Limit!, window, readsTop, readsAddresses });
  if (newest && need.addresses) {
    // From the top: every head member, then the newest orders.
    plan.push(
      query(
        'customerScreen',
        {
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ScanIndexForward: false,
          Limit: HEAD_BOUND + newest.first + 1,
        },
        newest,
        true,
        true,
      ),
    );
  } else if (newest) {
    // From the profile down: it proves existence and sits right above the newest order.
    plan.push(
      query(
        'customerProfileOrders',
        {
          KeyConditionExpression: 'PK = :pk AND SK <= :profile',
          ExpressionAttributeValues: { ':pk': pk, ':profile': profile.prefix },
          ScanIndexForward: false,
          Limit: PROFILE_TO_ORDERS + newest.first + 1,
        },
        newest,
        true,
        false,
      ),
    );
  } else if (need.addresses) {
    // The head alone, ascending: the profile, then at most its bound of addresses.
    plan.push(
      query(
        'customerHead',
        {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :head)',
          ExpressionAttributeValues: { ':pk': pk, ':head': collection.head.prefix },
          Limit: collection.head.bound,
        },
        undefined,
        true,
        true,
      ),
    );
  } else if (need.profile) {
    plan.push(
      query(
        'customerHead',
        {
          KeyConditionExpression: 'PK = :pk AND SK = :profile',
          ExpressionAttributeValues: { ':pk': pk, ':profile': profile.prefix },
          Limit: 1,
        },
        undefined,
        true,
        false,
      ),
    );
  }
  for (const window of need.windows.filter((w) => !isNewest(w))) {
    plan.push(
      query(
        'customerOrderWindow',
        {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': orderKeys.summaryPrefix(window.month) },
          ScanIndexForward: false,
          Limit: window.first + 1,
          ...(window.start ? { ExclusiveStartKey: window.start } : {}),
        },
        window,
        false,
        false,
      ),
    );
  }
  return plan;
}

/** The SK prefix every order of the collection starts with (`ORDER#`), from the declaration. */
export const ORDER_SK_PREFIX = orders.prefix;
