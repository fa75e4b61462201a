/**
 * What one request knows of one customer's collection, and how a planned Query's answer adds to
 * it: `absorb` splits the items by their `type` attribute into the declared members (the sort-key
 * prefix asserted by `customerCollection.memberOf`), `missingPart` says what is still unknown,
 * `pageOf` cuts a window's page from a run.
 *
 * **A member over its bound** (an 11th address, from an import or a bug) is not an error: the
 * answer keeps the addresses with the lowest labels, up to the bound (what the ascending head
 * Query, whose `Limit` stops at the bound, returns too, so both reads agree), and `absorb` returns
 * a `CollectionAnomaly` for the caller to report. The screen Query's `Limit` counts on the bound,
 * so a surplus cuts its orders short; the run is then incomplete and the caller reads it again
 * from the profile down (session.ts), in one more wave, only for such data.
 */
import type { Item } from '../../dynamo/types';
import { addressFromItem, type AddressRecord } from '../entity/address';
import { customerFromItem, type CustomerRecord } from '../entity/customer';
import { encodeCursor, orderPage, type OrderPage } from '../cursor';
import { orderFromItem, orderKeys, type OrderRecord } from '../order';
import { customerCollection, type CustomerMember } from './members';
import type { CollectionNeed, PlannedQuery } from './plan';
import { cursorScope, runKey, type OrderWindow } from './window';

/** What is known of one customer's collection so far in a request. */
export interface CollectionState {
  /** undefined: not known yet. */
  exists: boolean | undefined;
  profile: CustomerRecord | undefined;
  addresses: AddressRecord[] | undefined;
  /** Orders read from the start of a run (see `runKey`), newest first; `complete` when the run ended. */
  runs: Map<string, { orders: OrderRecord[]; complete: boolean }>;
}

/** Data that breaks the collection's declaration, read and answered anyway. */
export interface CollectionAnomaly {
  customerId: string;
  member: CustomerMember;
  message: string;
}

export function emptyState(): CollectionState {
  return { exists: undefined, profile: undefined, addresses: undefined, runs: new Map() };
}

const ADDRESS_BOUND = customerCollection.member('addresses').bound as number;

/**
 * Splits a planned Query's items by member into `state`; returns what broke the declaration.
 * Throws (an internal error) for an item of the collection that is no member's, or whose keys
 * contradict its `type`: corrupt data is not guessed at.
 */
export function absorb(state: CollectionState, query: PlannedQuery, items: readonly Item[], complete: boolean): CollectionAnomaly[] {
  const anomalies: CollectionAnomaly[] = [];
  const split: Record<CustomerMember, Item[]> = { addresses: [], profile: [], orders: [] };
  for (const item of items) split[customerCollection.memberOf(item).name].push(item);

  const profileItem = split.profile[0];
  // Whether the Query read past where the profile sits: an ascending head Query starts there, a
  // descending one has passed it once it meets an order.
  const passedProfile = complete || split.orders.length > 0 || (query.input.ScanIndexForward !== false && items.length > 0);
  if (profileItem) {
    state.profile = customerFromItem(profileItem);
    state.exists = true;
  } else if (query.readsTop && passedProfile) {
    state.exists = false;
  }
  if (query.readsAddresses) {
    const addresses = split.addresses.map(addressFromItem).sort((a, b) => a.label.localeCompare(b.label));
    if (addresses.length > ADDRESS_BOUND) {
      const customerId = customerCollection.idOf(split.addresses[0]!.PK) ?? '?';
      anomalies.push({
        customerId,
        member: 'addresses',
        message: `customer ${customerId} has ${addresses.length} addresses, over the bound of ${ADDRESS_BOUND}; the first ${ADDRESS_BOUND} by label are shown`,
      });
    }
    state.addresses = addresses.slice(0, ADDRESS_BOUND);
  }
  if (query.window) {
    const orders = split.orders.map(orderFromItem);
    if (orders.length > 0) state.exists = true;
    state.runs.set(runKey(query.window), { orders, complete });
  }
  return anomalies;
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

/** The page a window asks for, from what `state` holds (the caller made sure it holds enough). */
export function pageOf(customerId: string, state: CollectionState, window: OrderWindow): OrderPage {
  const run = state.runs.get(runKey(window)) ?? { orders: [], complete: true };
  const orders = run.orders.slice(0, window.first);
  const scope = cursorScope(customerId, window.month);
  return orderPage(
    orders,
    run.orders.length > window.first,
    () => orders.map((order) => encodeCursor(scope, orderKeys.summary(order))),
    window.start !== undefined,
  );
}
