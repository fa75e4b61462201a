/**
 * Order windows of the customer collection: `orders(first, after, month)` of one customer,
 * validated in two steps so each is done once: `checkWindowArgs` (first 1..100, month YYYY-MM:
 * the same for every customer, so a look-ahead checks it once per field) and `windowFor` (the
 * cursor, which belongs to one customer's list and month). A window belongs to a *run*: the
 * orders from one starting point (the newest order, a month's newest, or a cursor) downwards;
 * windows of one run differ only in how far they reach.
 */
import type { Key } from '../../dynamo/types';
import { checkFirst, decodeCursor, encodeCursor, orderPage } from '../cursor';
import type { RunSpec } from './declaration';
import { badInput } from '../errors';
import { orderSummaryEntity } from '../entities';
import { orderKeys, type OrderRecord } from '../order';

export interface OrderWindowArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  month?: string | null | undefined;
}

/** Window arguments with `first` and `month` checked; `after` still a cursor text. */
export interface CheckedWindowArgs {
  first: number;
  month: string | undefined;
  after: string | undefined;
}

/** A validated window: where the run starts (`month`, `start`) and how much of it is wanted. */
export interface OrderWindow {
  first: number;
  month: string | undefined;
  /** The key the page starts after (exclusive), from a cursor. */
  start: Key | undefined;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Checks `first` (1..100, 20 when absent) and `month` (YYYY-MM). Throws BAD_USER_INPUT. */
export function checkWindowArgs(args: OrderWindowArgs): CheckedWindowArgs {
  const first = checkFirst(args.first);
  const month = args.month == null ? undefined : args.month;
  if (month !== undefined && !MONTH.test(month)) throw badInput('month must be a month such as 2026-09', 'month');
  return { first, month, after: args.after == null ? undefined : args.after };
}

/** The window of checked arguments for one customer: its cursor must be of this customer's list (and month). */
export function windowFor(customerId: string, args: CheckedWindowArgs): OrderWindow {
  const start = args.after === undefined ? undefined : decodeOrderCursor(customerId, args.month, args.after);
  return { first: args.first, month: args.month, start };
}

/**
 * Validates `orders(first, after, month)` of one customer: first 1..100, month YYYY-MM, and a
 * cursor made for this customer's list (and month). Throws BAD_USER_INPUT before any request.
 */
export function checkOrderWindow(customerId: string, args: OrderWindowArgs): OrderWindow {
  return windowFor(customerId, checkWindowArgs(args));
}

export function cursorScope(customerId: string, month: string | undefined): string {
  return `orders:${customerId}:${month ?? '*'}`;
}

function decodeOrderCursor(customerId: string, month: string | undefined, cursor: string): Key {
  // The key of one of this customer's order summaries, of that month: the summary's declared shape.
  const key = decodeCursor(
    cursor,
    cursorScope(customerId, month),
    (k) =>
      Object.keys(k).length === 2 &&
      orderSummaryEntity.parseKey(k)?.customerId === customerId &&
      k.SK!.startsWith(orderKeys.summaryPrefix(month)),
  );
  return { PK: key.PK as string, SK: key.SK as string };
}

/** Runs are identified by where they start; windows of one run differ only in how far they reach. */
export function runKey(window: Pick<OrderWindow, 'month' | 'start'>): string {
  return `${window.month ?? '*'}|${window.start?.SK ?? ''}`;
}

/** The run of a customer's newest orders, from the top of the collection. */
export const NEWEST_RUN = runKey({ month: undefined, start: undefined });

/** Whether a window starts at the newest order (so it is adjacent to the head of the collection). */
export function isNewest(window: OrderWindow): boolean {
  return window.month === undefined && window.start === undefined;
}

/**
 * The runs of the customer collection's orders: by month and cursor, each read within its month's
 * SK prefix, paged with cursors of this customer's list (and month).
 */
export const orderRuns: RunSpec<OrderWindow> = {
  key: runKey,
  top: NEWEST_RUN,
  check: (args) => void checkWindowArgs(args as OrderWindowArgs),
  newest: isNewest,
  prefix: (window) => orderKeys.summaryPrefix(window.month),
  page: (customerId, records, window) => {
    const orders = (records as OrderRecord[]).slice(0, window.first);
    const scope = cursorScope(customerId, window.month);
    return orderPage(
      orders,
      records.length > window.first,
      () => orders.map((order) => encodeCursor(scope, orderKeys.summary(order))),
      window.start !== undefined,
    );
  },
};
