/**
 * Opaque page cursors. A cursor names a position (the key of the last item of a page) inside one
 * scope (a customer's collection, a status index partition). Decoding checks both the shape of the
 * key and that the scope is the one being paged, so a forged cursor or one taken from another
 * collection is BAD_USER_INPUT and never reaches DynamoDB.
 */
import { badInput } from './errors';

const VERSION = 1;

export type CursorKey = Record<string, string>;

/** An opaque token: JSON in base64url. Cursors and node ids (node-id.ts) are such tokens. */
export function packToken(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** What `packToken` packed, or undefined for text that is not such a token (empty, over 1024 characters, not base64url JSON). */
export function unpackToken(text: string): unknown {
  if (text.length === 0 || text.length > TOKEN_MAX || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The longest token accepted: far above any real key. */
const TOKEN_MAX = 1024;

export function encodeCursor(scope: string, key: CursorKey): string {
  return packToken([VERSION, scope, key]);
}

/**
 * The key a cursor carries, when it was made for `scope` and every key attribute is a string
 * that `isValidKey` accepts; throws BAD_USER_INPUT otherwise.
 */
export function decodeCursor(cursor: string, scope: string, isValidKey: (key: CursorKey) => boolean, field = 'after'): CursorKey {
  const invalid = () => badInput(`${field} is not a cursor of this list`, field);
  const parsed = unpackToken(cursor);
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== VERSION || parsed[1] !== scope) throw invalid();
  const key = parsed[2] as unknown;
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw invalid();
  if (!Object.values(key).every((value) => typeof value === 'string')) throw invalid();
  if (!isValidKey(key as CursorKey)) throw invalid();
  return key as CursorKey;
}

export const FIRST_DEFAULT = 20;
export const FIRST_MAX = 100;

/** Validates a page size: 1..100, 20 when absent. Throws BAD_USER_INPUT. */
export function checkFirst(value: number | null | undefined, field = 'first'): number {
  const first = value ?? FIRST_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > FIRST_MAX) throw badInput(`${field} must be from 1 to ${FIRST_MAX}`, field);
  return first;
}

/** A list field's paging arguments, as GraphQL passes them. */
export interface PageArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
}

/** A page of orders, newest first, with a cursor per order. */
export interface OrderPage {
  orders: import('./order').OrderRecord[];
  /** One cursor per order; computed on first use, since most selections ask for none. */
  readonly cursors: string[];
  hasNextPage: boolean;
  /**
   * Whether the page starts after a cursor (paging forward, `after`): the cursor's own order came
   * before it. False for a first page, which starts at the list's beginning.
   */
  hasPreviousPage: boolean;
}

/** A page whose cursors are made only if a resolver reads them (`edges`, `pageInfo`). */
export function orderPage(
  orders: import('./order').OrderRecord[],
  hasNextPage: boolean,
  makeCursors: () => string[],
  hasPreviousPage = false,
): OrderPage {
  let cursors: string[] | undefined;
  return {
    orders,
    hasNextPage,
    hasPreviousPage,
    get cursors() {
      return (cursors ??= makeCursors());
    },
  };
}
