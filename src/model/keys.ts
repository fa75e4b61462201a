import { monotonicFactory } from 'ulid';
import { badInput } from './errors';

/**
 * The shared key grammar. Every key is `PREFIX#part[#part…]`; a part that comes from a user never
 * contains the separator, so no input can reach another entity's prefix or another collection.
 */
export const SEP = '#';

/** Crockford's base 32, as ULIDs spell it (no I, L, O, U): the one declaration of an id's letters. */
export const ULID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/**
 * Ids are ULIDs: 26 Crockford base-32 characters, sortable by creation time. The shape as a
 * regular expression text (no anchors, no groups), as key parts declare shapes (entity/parts.ts);
 * every id check of the model is built from it.
 */
export const ULID_SHAPE = `[${ULID_ALPHABET}]{26}`;
const ULID = new RegExp(`^${ULID_SHAPE}$`);
/** An id of that shape the documentation builds example requests with (access-pattern.ts `example`). */
export const EXAMPLE_ID = '01J9ZQ4K3M5N6P7R8S9T0V1W2X';
const nextUlid = monotonicFactory();

/**
 * Orders two key strings as DynamoDB orders sort keys, by their UTF-8 bytes (code point order),
 * without encoding them. JavaScript's `<` compares UTF-16 code units, which differs only where a
 * surrogate (a code point above U+FFFF) meets a unit from U+E000 to U+FFFF: the surrogate's code point is the larger.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** A new sortable id; ids are always generated server-side. */
export function newId(): string {
  return nextUlid();
}

const ULID_ANY_CASE = new RegExp(`^${ULID_SHAPE}$`, 'i');

/**
 * Returns the id, upper-cased, if it is a well-formed ULID in either case, else throws
 * BAD_USER_INPUT. The shape is checked before upper-casing, since Unicode case mapping turns
 * some letters into ASCII ones ('ſ' → 'S').
 */
export function checkId(value: string, field: string): string {
  if (!ULID_ANY_CASE.test(value)) throw badInput(`${field} must be an id of 26 base-32 characters`, field);
  return value.toUpperCase();
}

/** Whether `value` is an id exactly as the server writes it (upper case): for ids read back from keys and cursors. */
export function isId(value: string): boolean {
  return ULID.test(value);
}

// Control characters are exactly what this refuses.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** A UTF-16 surrogate without its pair: not text, and DynamoDB would store every one alike. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Trims and bounds a free-text field. Returns the trimmed text; throws BAD_USER_INPUT when it is
 * empty, longer than `max` characters, or holds control characters.
 */
export function checkText(value: string, field: string, max: number): string {
  const text = value.trim();
  if (text.length === 0) throw badInput(`${field} must not be empty`, field);
  if (text.length > max) throw badInput(`${field} must be at most ${max} characters`, field);
  if (CONTROL.test(text)) throw badInput(`${field} must not contain control characters`, field);
  if (LONE_SURROGATE.test(text)) throw badInput(`${field} must be valid Unicode text`, field);
  return text;
}

/** A text that will stand inside a key: as `checkText`, and it never holds the separator. */
export function checkKeyPart(value: string, field: string, max: number): string {
  const text = checkText(value, field, max);
  if (text.includes(SEP)) throw badInput(`${field} must not contain "${SEP}"`, field);
  return text;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]00:?00)$/;

/**
 * Normalises an ISO-8601 UTC timestamp to the fixed-width form `YYYY-MM-DDTHH:mm:ss.sssZ`, which
 * sorts as text in time order (sort keys rely on that). Years 2000..9999 only.
 */
export function checkTimestamp(value: string, field: string): string {
  const text = value.trim();
  const time = ISO_UTC.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) throw badInput(`${field} must be an ISO-8601 UTC timestamp such as 2026-09-01T10:00:00Z`, field);
  const iso = new Date(time).toISOString();
  if (iso.slice(0, 10) !== text.slice(0, 10)) throw badInput(`${field} is not a calendar date`, field);
  if (iso < '2000' || iso.length !== 24) throw badInput(`${field} must be between the years 2000 and 9999`, field);
  return iso;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Reads a required string attribute of a stored item; a missing one means a corrupt item (a bug). */
export function str(item: Record<string, unknown>, name: string): string {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`item ${String(item.PK)}/${String(item.SK)} lacks string attribute ${name}`);
  return value;
}

export function num(item: Record<string, unknown>, name: string): number {
  const value = item[name];
  if (typeof value !== 'number') throw new Error(`item ${String(item.PK)}/${String(item.SK)} lacks number attribute ${name}`);
  return value;
}
