/**
 * Arbitraries and helpers shared by the property-based model tests (properties.test.ts,
 * codecs.test.ts, cursors.test.ts).
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Item, Table, TransactAction } from '../../src/dynamo/table';
import { entities } from '../../src/model/entities';
import { DEFAULT_WRITE_SHARDS, DomainError, ORDER_STATUSES, productKeys, productToItem } from '../../src/model';

// ---- arbitraries ------------------------------------------------------------------------------

export const SEP = '#';
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const PK_MAX_BYTES = 2048;
export const SK_MAX_BYTES = 1024;
export const INT_MAX = 2_147_483_647;

/** Fragments that try to break out of a key part: separators, other entities' prefixes, controls, look-alikes. */
export const HOSTILE = [
  '#',
  '##',
  '#PROFILE',
  'CUSTOMER#',
  'ORDER#',
  'PROFILE',
  'PROFILE#ADDRESS#',
  'EMAIL#',
  'IDEMPOTENCY#',
  'STATUS#PENDING#0',
  'SKU#',
  'LINE#0001',
  '\u0000',
  '\n',
  '\r',
  '\t',
  '\u001f',
  '\u007f',
  ' ',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u200b',
  '＃',
  '%23',
  '&#35;',
  '\\#',
  '@',
  '.',
  ':',
  '|',
  '*',
  'ſ',
  'ß',
  'İ',
  '😀',
];

/** Any UTF-16 code unit, lone surrogates included: what a JSON string may carry. */
export const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });
export const hostile = fc
  .array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...HOSTILE)), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** Arbitrary strings: ASCII, any code point (fast-check 4's replacement of fullUnicodeString), graphemes, raw UTF-16, hostile mixes, very long. */
export const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  utf16,
  hostile,
  fc.string({ minLength: 300, maxLength: 3000 }),
);

/** A valid value dressed up: padded, suffixed with a fragment, or cut to a length around a limit. */
export function nearly(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    valid,
    fc.tuple(fc.constantFrom('', ' ', '\t', '\u00a0'), valid, fc.constantFrom('', ' ', '\n')).map(([a, v, b]) => `${a}${v}${b}`),
    fc.tuple(valid, fc.constantFrom(...HOSTILE), valid).map(([a, h, b]) => `${a}${h}${b}`),
    fc.tuple(valid, fc.nat({ max: 300 })).map(([v, n]) => v.repeat(Math.ceil(n / Math.max(v.length, 1)) + 1).slice(0, n)),
  );
}

export const ulid = fc.ulid();
export const month = fc
  .tuple(fc.integer({ min: 2000, max: 9999 }), fc.integer({ min: 1, max: 12 }))
  .map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`);
export const isoTime = fc
  .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
export const status = fc.constantFrom(...ORDER_STATUSES);
export const textValue = fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }));
export const keyPartValue = (max: number) => fc.string({ unit: 'binary', minLength: 1, maxLength: max }).filter((s) => !s.includes(SEP));

export const idInput = fc.oneof(
  anyString,
  ulid,
  ulid.map((id) => id.toLowerCase()),
  nearly(ulid),
  ulid.map((id) => `${id}#PROFILE`),
  fc.string({ minLength: 26, maxLength: 26 }),
);
export const labelInput = fc.oneof(anyString, nearly(fc.constantFrom('home', 'work', 'Casa de verano', 'oficina 2ª planta', '家')));
export const emailInput = fc.oneof(
  anyString,
  fc.emailAddress(),
  nearly(fc.emailAddress()),
  fc.emailAddress().map((e) => e.replace('@', '#@')),
);
export const keyInput = fc.oneof(anyString, fc.uuid(), nearly(fc.uuid()));
export const skuInput = fc.oneof(anyString, fc.stringMatching(/^[A-Z0-9-]{1,70}$/), nearly(fc.constantFrom('SKU-1', 'TSHIRT-M-RED')));
export const timestampInput = fc.oneof(
  anyString,
  isoTime,
  isoTime.map((t) => t.replace('.000Z', 'Z')),
  nearly(isoTime),
  fc.constant(null),
);
export const monthInput = fc.oneof(anyString, month, month, nearly(month), fc.stringMatching(/^\d{4}-\d{1,2}$/), fc.constant(null));

// ---- helpers --------------------------------------------------------------------------------

export type Outcome<T> = { ok: true; value: T } | { ok: false };

/** The value, or `{ ok: false }` for a BAD_USER_INPUT refusal; any other error fails the property. */
export function outcome<T>(run: () => T): Outcome<T> {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') return { ok: false };
    throw error;
  }
}

export async function outcomeAsync<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') return { ok: false };
    throw error;
  }
}

export function expectKey(key: unknown, prefix: string, parts: number, maxBytes: number): void {
  expect(typeof key).toBe('string');
  const text = key as string;
  expect(text.startsWith(prefix), `${JSON.stringify(text)} starts with ${prefix}`).toBe(true);
  expect(text.split(SEP), JSON.stringify(text)).toHaveLength(parts);
  expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(maxBytes);
}

/** Exactly one declared entity claims the item's keys, and it is `name`. */
export function expectEntity(item: Item, name: string): void {
  expect(
    entities()
      .filter((entity) => entity.matches(item))
      .map((entity) => entity.name),
  ).toEqual([name]);
}

/** The price the recording table's catalog gives a SKU: any product is active and sold at it. */
export const catalogPrice = (sku: string) => 100 + sku.length;

/**
 * A table that records the transactions it is sent and the keys it is asked to read, and fails on
 * anything else. Every SKU is an active product at `catalogPrice`; every customer exists, with a
 * profile of no address and no event yet (`eventSeq` absent), whether batch-read with an order's
 * prices or read alone before a write of the customer.
 */
export function recordingTable() {
  const sent: TransactAction[][] = [];
  const reads: Array<readonly { PK: string; SK: string }[]> = [];
  const profile = (key: { PK: string; SK: string }) => ({ ...key, type: 'CUSTOMER', id: key.PK.slice('CUSTOMER#'.length) });
  const table = {
    writeShards: DEFAULT_WRITE_SHARDS,
    transactWrite: async (actions: readonly TransactAction[]) => {
      sent.push([...actions]);
    },
    get: async ({ Key }: { Key: { PK: string; SK: string } }) => {
      reads.push([Key]);
      return Key.SK === 'PROFILE' ? profile(Key) : undefined;
    },
    batchGet: async (keys: readonly { PK: string; SK: string }[]) => {
      reads.push(keys);
      return keys.map((key) => {
        if (key.SK === 'PROFILE') return profile(key);
        const sku = productKeys.skuOf(key.SK)!;
        return productToItem({ sku, name: 'Product', priceCents: catalogPrice(sku), active: true });
      });
    },
  } as unknown as Table;
  return { table, sent, reads };
}

/** A table over in-memory items that answers GSI1 Queries (newest first, Limit, ExclusiveStartKey) and counts them. */
export function indexTable(items: readonly Item[]) {
  let queries = 0;
  const table = {
    writeShards: DEFAULT_WRITE_SHARDS,
    query: async (input: {
      ExpressionAttributeValues?: Record<string, unknown>;
      Limit?: number;
      ExclusiveStartKey?: Record<string, unknown>;
    }) => {
      queries++;
      const pk = input.ExpressionAttributeValues?.[':pk'];
      const after = input.ExclusiveStartKey?.GSI1SK as string | undefined;
      const matching = items
        .filter((item) => item.GSI1PK === pk && (after === undefined || String(item.GSI1SK) < after))
        .sort((a, b) => (String(a.GSI1SK) < String(b.GSI1SK) ? 1 : -1));
      const page = matching.slice(0, input.Limit ?? matching.length);
      const last = page.at(-1);
      return {
        Items: page,
        Count: page.length,
        LastEvaluatedKey:
          page.length < matching.length && last ? { GSI1PK: last.GSI1PK, GSI1SK: last.GSI1SK, PK: last.PK, SK: last.SK } : undefined,
      };
    },
    batchGet: async () => [],
  } as unknown as Table;
  return { table, queries: () => queries };
}

export const throughTheWire = (item: Item): Item => unmarshall(marshall(item, { removeUndefinedValues: true }));
