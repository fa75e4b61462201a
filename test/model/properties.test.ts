/**
 * Property-based checks of the key grammar, the codecs and the cursors (fast-check). Pure: the
 * write paths run against a recording table that captures the transaction they would send, so the
 * keys checked are the keys the model really writes.
 *
 * 1. No input string reaches another entity's prefix or another customer's collection: every
 *    validator either refuses (DomainError BAD_USER_INPUT, before any request) or yields a value
 *    whose keys start with the entity's own prefix, have exactly the expected number of
 *    `#`-separated parts, fit DynamoDB's key sizes, are claimed by exactly the intended entity,
 *    and sit in the intended customer's collection.
 * 2. Every codec round-trips, through DynamoDB's wire format (marshall/unmarshall) too.
 * 3. A cursor is accepted only by the list it was made for.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Item, Table, TransactAction } from '../../src/dynamo/table';
import {
  ADDRESS_PREFIX,
  addressFromItem,
  addressKeys,
  addressToItem,
  absorb,
  checkCustomerId,
  checkEmail,
  checkId,
  checkIdempotencyKey,
  checkLabel,
  checkOrderId,
  checkOrderWindow,
  checkSku,
  createCustomer,
  customerFromItem,
  customerKeys,
  DomainError,
  emptyState,
  headerToItem,
  IDEMPOTENCY_PREFIX,
  idempotencyFromItem,
  idempotencyKeys,
  idempotencyToItem,
  indexedLineToItem,
  isStatusSk,
  isSummarySk,
  lineFromItem,
  lineToItem,
  MAX_LINES,
  ORDER_STATUSES,
  orderFromCollection,
  orderFromItem,
  orderKeys,
  ordersBySku,
  ordersByStatus,
  pageOf,
  placeOrder,
  planCollection,
  productFromItem,
  productKeys,
  productToItem,
  profileToItem,
  putAddress,
  shardOf,
  STATUS_SHARDS,
  summaryToItem,
  type AddressRecord,
  type CustomerRecord,
  type IdempotencyRecord,
  type OrderLineRecord,
  type OrderRecord,
  type OrderStatus,
  type ProductRecord,
} from '../../src/model';
import { entities } from '../../src/model/catalog';

// ---- arbitraries ------------------------------------------------------------------------------

const SEP = '#';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const PK_MAX_BYTES = 2048;
const SK_MAX_BYTES = 1024;
const INT_MAX = 2_147_483_647;

/** Fragments that try to break out of a key part: separators, other entities' prefixes, controls, look-alikes. */
const HOSTILE = [
  '#', '##', '#PROFILE', 'CUSTOMER#', 'ORDER#', 'PROFILE', 'PROFILE#ADDRESS#', 'EMAIL#', 'IDEMPOTENCY#', 'STATUS#PENDING#0', 'SKU#', 'LINE#0001',
  '\u0000', '\n', '\r', '\t', '\u001f', '\u007f', ' ', '\u00a0', '\u2028', '\ufeff', '\u200b', '＃', '%23', '&#35;', '\\#', '@', '.', ':', '|', '*', 'ſ', 'ß', 'İ', '😀',
];

/** Any UTF-16 code unit, lone surrogates included: what a JSON string may carry. */
const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });
const hostile = fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...HOSTILE)), { maxLength: 12 }).map((parts) => parts.join(''));

/** Arbitrary strings: ASCII, any code point (fast-check 4's replacement of fullUnicodeString), graphemes, raw UTF-16, hostile mixes, very long. */
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  utf16,
  hostile,
  fc.string({ minLength: 300, maxLength: 3000 }),
);

/** A valid value dressed up: padded, suffixed with a fragment, or cut to a length around a limit. */
function nearly(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    valid,
    fc.tuple(fc.constantFrom('', ' ', '\t', '\u00a0'), valid, fc.constantFrom('', ' ', '\n')).map(([a, v, b]) => `${a}${v}${b}`),
    fc.tuple(valid, fc.constantFrom(...HOSTILE), valid).map(([a, h, b]) => `${a}${h}${b}`),
    fc.tuple(valid, fc.nat({ max: 300 })).map(([v, n]) => v.repeat(Math.ceil(n / Math.max(v.length, 1)) + 1).slice(0, n)),
  );
}

const ulid = fc.ulid();
const month = fc.tuple(fc.integer({ min: 2000, max: 9999 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`);
const isoTime = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((d) => d.toISOString());
const status = fc.constantFrom(...ORDER_STATUSES);
const textValue = fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }));
const keyPartValue = (max: number) => fc.string({ unit: 'binary', minLength: 1, maxLength: max }).filter((s) => !s.includes(SEP));

const idInput = fc.oneof(anyString, ulid, ulid.map((id) => id.toLowerCase()), nearly(ulid), ulid.map((id) => `${id}#PROFILE`), fc.string({ minLength: 26, maxLength: 26 }));
const labelInput = fc.oneof(anyString, nearly(fc.constantFrom('home', 'work', 'Casa de verano', 'oficina 2ª planta', '家')));
const emailInput = fc.oneof(anyString, fc.emailAddress(), nearly(fc.emailAddress()), fc.emailAddress().map((e) => e.replace('@', '#@')));
const keyInput = fc.oneof(anyString, fc.uuid(), nearly(fc.uuid()));
const skuInput = fc.oneof(anyString, fc.stringMatching(/^[A-Z0-9-]{1,70}$/), nearly(fc.constantFrom('SKU-1', 'TSHIRT-M-RED')));
const timestampInput = fc.oneof(anyString, isoTime, isoTime.map((t) => t.replace('.000Z', 'Z')), nearly(isoTime), fc.constant(null));
const monthInput = fc.oneof(anyString, month, month, nearly(month), fc.stringMatching(/^\d{4}-\d{1,2}$/), fc.constant(null));

// ---- helpers --------------------------------------------------------------------------------

type Outcome<T> = { ok: true; value: T } | { ok: false };

/** The value, or `{ ok: false }` for a BAD_USER_INPUT refusal; any other error fails the property. */
function outcome<T>(run: () => T): Outcome<T> {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') return { ok: false };
    throw error;
  }
}

async function outcomeAsync<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') return { ok: false };
    throw error;
  }
}

function expectKey(key: unknown, prefix: string, parts: number, maxBytes: number): void {
  expect(typeof key).toBe('string');
  const text = key as string;
  expect(text.startsWith(prefix), `${JSON.stringify(text)} starts with ${prefix}`).toBe(true);
  expect(text.split(SEP), JSON.stringify(text)).toHaveLength(parts);
  expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(maxBytes);
}

/** Exactly one declared entity claims the item's keys, and it is `name`. */
function expectEntity(item: Item, name: string): void {
  expect(entities().filter((entity) => entity.matches(item)).map((entity) => entity.name)).toEqual([name]);
}

/** The price the recording table's catalog gives a SKU: any product is active and sold at it. */
const catalogPrice = (sku: string) => 100 + sku.length;

/**
 * A table that records the transactions it is sent and the keys it is asked to batch-read (as if
 * every SKU were an active product at `catalogPrice`), and fails on anything else.
 */
function recordingTable() {
  const sent: TransactAction[][] = [];
  const reads: Array<readonly { PK: string; SK: string }[]> = [];
  const table = {
    transactWrite: async (actions: readonly TransactAction[]) => {
      sent.push([...actions]);
    },
    batchGet: async (keys: readonly { PK: string; SK: string }[]) => {
      reads.push(keys);
      return keys.map((key) => {
        const sku = productKeys.skuOf(key.SK)!;
        return productToItem({ sku, name: 'Product', priceCents: catalogPrice(sku), active: true });
      });
    },
  } as unknown as Table;
  return { table, sent, reads };
}

/** A table over in-memory items that answers GSI1 Queries (newest first, Limit, ExclusiveStartKey) and counts them. */
function indexTable(items: readonly Item[]) {
  let queries = 0;
  const table = {
    query: async (input: { ExpressionAttributeValues?: Record<string, unknown>; Limit?: number; ExclusiveStartKey?: Record<string, unknown> }) => {
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
        LastEvaluatedKey: page.length < matching.length && last ? { GSI1PK: last.GSI1PK, GSI1SK: last.GSI1SK, PK: last.PK, SK: last.SK } : undefined,
      };
    },
    batchGet: async () => [],
  } as unknown as Table;
  return { table, queries: () => queries };
}

const throughTheWire = (item: Item): Item => unmarshall(marshall(item, { removeUndefinedValues: true }));

// ---- 1. no input escapes its entity or its collection ------------------------------------------

describe('no input string reaches another entity or another customer', () => {
  it('ids (checkId, checkCustomerId, checkOrderId): refused, or a ULID whose keys are its own customer\'s and order\'s', () => {
    fc.assert(fc.property(idInput, (input) => {
      for (const check of [(v: string) => checkId(v, 'id'), (v: string) => checkCustomerId(v), (v: string) => checkOrderId(v)]) {
        const result = outcome(() => check(input));
        if (!result.ok) continue;
        const id = result.value;
        expect(id).toMatch(ULID);
        expect(id).toBe(input.toUpperCase());
        const profile = customerKeys.profile(id);
        expectKey(profile.PK, 'CUSTOMER#', 2, PK_MAX_BYTES);
        expect(customerKeys.idOf(profile.PK)).toBe(id);
        expectEntity(profile, 'Customer profile');
        const header = orderKeys.header(id);
        expectKey(header.PK, 'ORDER#', 2, PK_MAX_BYTES);
        expect(orderKeys.idOf(header.PK)).toBe(id);
        expectEntity(header, 'Order header');
      }
    }), { numRuns: 500 });
  });

  /** Unicode case mapping turns some letters into ASCII ones ('ſ' → 'S'): the shape is checked first. */
  it('ids: only ASCII ULIDs (in either letter case) are accepted', () => {
    const lookalike = fc.constantFrom('ſ', 'ß', 'ﬀ', 'ﬅ', 'ﬆ');
    const spelled = fc.tuple(ulid, lookalike, fc.nat({ max: 24 })).map(([id, l, at]) => `${id.slice(0, at)}${l}${id.slice(at + (l.toUpperCase().length))}`);
    fc.assert(fc.property(fc.oneof(idInput, spelled), (input) => {
      const result = outcome(() => checkId(input, 'id'));
      if (result.ok) expect(input).toMatch(/^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/);
    }), { numRuns: 300, examples: [['ſ' + '0'.repeat(25)], ['ß' + '0'.repeat(24)]] });
  });

  it('address labels (checkLabel, putAddress): refused, or keys under the intended customer, right above the profile', async () => {
    await fc.assert(fc.asyncProperty(ulid, labelInput, async (customerId, input) => {
      const checked = outcome(() => checkLabel(input));
      const { table, sent } = recordingTable();
      const written = await outcomeAsync(() => putAddress(table, customerId, { label: input, street: 'Gran Vía 1', city: 'Madrid', postalCode: '28013', country: 'ES' }));
      expect(written.ok).toBe(checked.ok);
      if (!checked.ok || !written.ok) {
        expect(sent).toEqual([]);
        return;
      }
      const key = addressKeys.key(customerId, checked.value);
      expect(key.PK).toBe(`CUSTOMER#${customerId}`);
      expectKey(key.SK, ADDRESS_PREFIX, 3, SK_MAX_BYTES);
      expect(key.SK > 'PROFILE' && key.SK.startsWith('PROFILE#')).toBe(true); // sorts above the profile and every order
      expectEntity(key, 'Address');
      // What putAddress sent: the intended customer's profile and this address, nothing else.
      expect(sent).toHaveLength(1);
      const [update, put] = sent[0]!;
      expect(update).toMatchObject({ Update: { Key: customerKeys.profile(customerId) } });
      expect(put).toMatchObject({ Put: { Item: { ...key, customerId, label: checked.value } } });
    }), { numRuns: 300 });
  });

  it('emails (checkEmail, createCustomer): refused, or a profile and an email guard under their own prefixes', async () => {
    await fc.assert(fc.asyncProperty(emailInput, async (input) => {
      const checked = outcome(() => checkEmail(input));
      const { table, sent } = recordingTable();
      const created = await outcomeAsync(() => createCustomer(table, { name: 'Ana', email: input }));
      expect(created.ok).toBe(checked.ok);
      if (!checked.ok || !created.ok) {
        expect(sent).toEqual([]);
        return;
      }
      const customer = created.value;
      const [profile, guard] = sent[0]!.map((action) => ('Put' in action ? action.Put.Item as Item : {}));
      expect(profile).toMatchObject({ PK: `CUSTOMER#${customer.id}`, SK: 'PROFILE', GSI1SK: `CUSTOMER#${customer.id}`, email: checked.value });
      expectKey(profile!.PK, 'CUSTOMER#', 2, PK_MAX_BYTES);
      expectKey(profile!.GSI1PK, 'EMAIL#', 2, PK_MAX_BYTES);
      expectKey(profile!.GSI1SK, 'CUSTOMER#', 2, SK_MAX_BYTES);
      expectEntity(profile!, 'Customer profile');
      expect(guard).toMatchObject({ PK: profile!.GSI1PK, SK: 'EMAIL', customerId: customer.id });
      expectKey(guard!.PK, 'EMAIL#', 2, PK_MAX_BYTES);
      expectEntity(guard!, 'Email guard');
    }), { numRuns: 300 });
  });

  it('placeOrder (customer id, idempotency key, SKUs, placedAt): refused before any request, or every key in its own place', async () => {
    // Mostly valid parts, so that a good share of orders is accepted and its keys are checked.
    const mostly = <T,>(valid: fc.Arbitrary<T>, any: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: any, weight: 1 });
    const lineInput = fc.record({
      sku: mostly(fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/), skuInput),
      quantity: mostly(fc.integer({ min: 1, max: 100 }), fc.integer()),
    });
    // Staff imports are back-dated: a placedAt in the future is refused like a malformed one.
    const pastTime = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date(), noInvalidDate: true }).map((d) => d.toISOString());
    const input = fc.record({
      customerId: mostly(fc.oneof(ulid, ulid.map((id) => id.toLowerCase())), idInput),
      idempotencyKey: mostly(fc.uuid(), keyInput),
      lines: fc.array(lineInput, { minLength: 0, maxLength: 5 }),
      placedAt: mostly(fc.oneof(fc.constant(null), pastTime), timestampInput),
    });
    await fc.assert(fc.asyncProperty(input, async (order) => {
      const { table, sent, reads } = recordingTable();
      const placed = await outcomeAsync(() => placeOrder(table, order));
      if (!placed.ok) {
        expect(sent).toEqual([]);
        expect(reads).toEqual([]);
        return;
      }
      // Each validator agrees with what placeOrder accepted.
      const customerId = checkCustomerId(order.customerId);
      const key = checkIdempotencyKey(order.idempotencyKey);
      const skus = order.lines.map((line) => checkSku(line.sku));
      const { id, placedAt } = placed.value;
      expect(id).toMatch(ULID);
      expect(placed.value.customerId).toBe(customerId);
      // One catalog read of the distinct SKUs, all under the catalog's own key.
      expect(reads).toHaveLength(1);
      expect(reads[0]).toEqual([...new Set(skus)].map(productKeys.key));

      expect(sent).toHaveLength(1);
      const [check, idempotency, summary, header, ...lines] = sent[0]!;
      expect(check).toEqual({ ConditionCheck: expect.objectContaining({ Key: customerKeys.profile(customerId) }) });

      const record = (idempotency as { Put: { Item: Item } }).Put.Item;
      expect(record).toMatchObject(idempotencyKeys.key(customerId, key));
      expectKey(record.PK, `${IDEMPOTENCY_PREFIX}${customerId}${SEP}`, 3, PK_MAX_BYTES); // the customer's own key
      expectEntity(record, 'Idempotency record');

      const summaryItem = (summary as { Put: { Item: Item } }).Put.Item;
      expect(summaryItem.PK).toBe(`CUSTOMER#${customerId}`); // the intended customer's collection
      expectKey(summaryItem.SK, 'ORDER#', 3, SK_MAX_BYTES);
      expect(summaryItem.SK).toBe(`ORDER#${placedAt}#${id}`);
      expect(isSummarySk(summaryItem.SK as string)).toBe(true);
      expectKey(summaryItem.GSI1PK, 'STATUS#PENDING#', 3, PK_MAX_BYTES);
      expect(isStatusSk(summaryItem.GSI1SK as string)).toBe(true);
      expectEntity(summaryItem, 'Order summary');

      const headerItem = (header as { Put: { Item: Item } }).Put.Item;
      expect(headerItem).toMatchObject(orderKeys.header(id));
      expectEntity(headerItem, 'Order header');

      expect(lines).toHaveLength(skus.length);
      lines.forEach((action, index) => {
        const line = (action as { Put: { Item: Item } }).Put.Item;
        expect(line).toMatchObject({ ...orderKeys.line(id, index + 1), sku: skus[index], unitPriceCents: catalogPrice(skus[index]!) });
        expectKey(line.SK, 'LINE#', 2, SK_MAX_BYTES);
        expectKey(line.GSI1PK, 'SKU#', 2, PK_MAX_BYTES);
        expectKey(line.GSI1SK, placedAt, 3, SK_MAX_BYTES);
        expectEntity(line, 'Order line');
      });
    }), { numRuns: 400 });
  });

  it('months (checkOrderWindow): refused, or a begins_with prefix of orders only, in the intended customer\'s collection', () => {
    const first = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer(), fc.double(), fc.constant(null));
    fc.assert(fc.property(ulid, monthInput, first, (customerId, input, size) => {
      const result = outcome(() => checkOrderWindow(customerId, { month: input, first: size }));
      if (!result.ok) return;
      const window = result.value;
      expect(Number.isInteger(window.first) && window.first >= 1 && window.first <= 100).toBe(true);
      if (window.month !== undefined) {
        expect(window.month).toBe(input);
        expect(window.month).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        expectKey(orderKeys.summaryPrefix(window.month), 'ORDER#', 2, SK_MAX_BYTES);
      }
      for (const query of planCollection(customerId, { profile: false, addresses: false, windows: [window] })) {
        expect(query.input.ExpressionAttributeValues?.[':pk']).toBe(`CUSTOMER#${customerId}`);
        const prefix = query.input.ExpressionAttributeValues?.[':prefix'];
        if (prefix !== undefined) expect(prefix).toBe(orderKeys.summaryPrefix(window.month));
      }
    }), { numRuns: 500 });
  });

  /** Lone surrogates are not text: stored as UTF-8, distinct ones would become one key. */
  it('key parts: every accepted text encodes to UTF-8 and back unchanged, so distinct inputs never share a key', () => {
    const validators: Array<(value: string) => string> = [(v) => checkLabel(v), (v) => checkEmail(v), (v) => checkIdempotencyKey(v), (v) => checkSku(v)];
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const withSurrogate = fc.tuple(fc.constantFrom('home', 'ana@example.com', 'key-1', 'SKU-1'), loneSurrogate).map(([v, s]) => v.replace(/^(\w)/, `$1${s}`));
    fc.assert(fc.property(fc.constantFrom(...validators), fc.oneof(labelInput, emailInput, keyInput, withSurrogate), (check, input) => {
      const result = outcome(() => check(input));
      if (result.ok) expect(Buffer.from(result.value, 'utf8').toString('utf8')).toBe(result.value);
    }), { numRuns: 300, examples: [[validators[0]!, '\ud800'], [validators[2]!, 'k\udc00']] });
  });
});

// ---- 2. codecs ------------------------------------------------------------------------------

const customerRecord: fc.Arbitrary<CustomerRecord> = fc.record({ id: ulid, name: textValue, email: fc.emailAddress(), createdAt: isoTime });
const addressRecord: fc.Arbitrary<AddressRecord> = fc.record({ label: keyPartValue(40), street: textValue, city: textValue, postalCode: textValue, country: textValue });
const orderRecord: fc.Arbitrary<OrderRecord> = fc.record({
  id: ulid,
  customerId: ulid,
  placedAt: isoTime,
  status,
  totalCents: fc.integer({ min: 0, max: INT_MAX }),
  lineCount: fc.integer({ min: 1, max: MAX_LINES }),
});
const lineRecord = (lineNo: fc.Arbitrary<number>): fc.Arbitrary<OrderLineRecord> =>
  fc.record({ lineNo, sku: keyPartValue(64), quantity: fc.integer({ min: 1, max: 100_000 }), unitPriceCents: fc.integer({ min: 0, max: 100_000_000 }) });
const idempotencyRecord: fc.Arbitrary<IdempotencyRecord> = fc.record({
  customerId: ulid,
  key: keyPartValue(128),
  orderId: ulid,
  fingerprint: fc.base64String({ minLength: 4, maxLength: 44 }),
  expiresAt: fc.integer({ min: 0, max: 4_102_444_800 }),
});

describe('every codec round-trips, through the DynamoDB wire format', () => {
  it('customer profile', () => {
    fc.assert(fc.property(customerRecord, (customer) => {
      const item = profileToItem(customer);
      expect(customerFromItem(throughTheWire(item))).toEqual(customer);
      expect(item).toMatchObject(customerKeys.profile(customer.id));
      expect(customerKeys.idOf(item.PK as string)).toBe(customer.id);
      expect(item.GSI1PK).toBe(`EMAIL#${customer.email.toLowerCase()}`);
      expectEntity(item, 'Customer profile');
    }));
  });

  it('address', () => {
    fc.assert(fc.property(ulid, addressRecord, (customerId, address) => {
      const item = addressToItem(customerId, address);
      expect(addressFromItem(throughTheWire(item))).toEqual(address);
      expect(item).toMatchObject(addressKeys.key(customerId, address.label));
      expect((item.SK as string).slice(ADDRESS_PREFIX.length)).toBe(address.label);
      expectEntity(item, 'Address');
    }));
  });

  it('order summary and header, and their keys', () => {
    fc.assert(fc.property(orderRecord, (order) => {
      const summary = summaryToItem(order);
      const header = headerToItem(order);
      expect(orderFromItem(throughTheWire(summary))).toEqual(order);
      expect(orderFromItem(throughTheWire(header))).toEqual(order);
      expect(summary).toMatchObject({ ...orderKeys.summary(order), GSI1PK: `STATUS#${order.status}#${shardOf(order.id)}`, GSI1SK: `${order.placedAt}#${order.id}` });
      const [, placedAt, id] = (summary.SK as string).split(SEP);
      expect({ placedAt, id, customerId: customerKeys.idOf(summary.PK as string) }).toEqual({ placedAt: order.placedAt, id: order.id, customerId: order.customerId });
      expect(isSummarySk(summary.SK as string) && isStatusSk(summary.GSI1SK as string)).toBe(true);
      expect(header).toMatchObject(orderKeys.header(order.id));
      expectEntity(summary, 'Order summary');
      expectEntity(header, 'Order header');
    }));
  });

  it('order lines, alone and as the order collection (header + lines in any order)', () => {
    const lines = fc.uniqueArray(fc.integer({ min: 1, max: MAX_LINES }), { minLength: 1, maxLength: 8 })
      .chain((numbers) => fc.tuple(...numbers.map((n) => lineRecord(fc.constant(n)))));
    fc.assert(fc.property(orderRecord, lines, fc.integer(), (order, orderLines, seed) => {
      for (const line of orderLines) {
        expect(lineFromItem(throughTheWire(lineToItem(order.id, line)))).toEqual(line);
        const indexed = indexedLineToItem(order, line);
        expect(lineFromItem(throughTheWire(indexed))).toEqual(line);
        expect(indexed).toMatchObject({ ...orderKeys.line(order.id, line.lineNo), GSI1PK: `SKU#${line.sku}`, GSI1SK: `${order.placedAt}#${order.id}#${String(line.lineNo).padStart(4, '0')}` });
        expect(Number((indexed.SK as string).slice('LINE#'.length))).toBe(line.lineNo);
        expectEntity(indexed, 'Order line');
      }
      const items = [headerToItem(order), ...orderLines.map((line) => indexedLineToItem(order, line))].map(throughTheWire);
      const shuffled = items.map((item, i) => ({ item, k: (i * 7919 + seed) % 104729 })).sort((a, b) => a.k - b.k).map(({ item }) => item);
      expect(orderFromCollection(shuffled)).toEqual({ ...order, lines: [...orderLines].sort((a, b) => a.lineNo - b.lineNo) });
    }));
  });

  it('product, and its key in the one catalog collection', () => {
    const productRecord: fc.Arbitrary<ProductRecord> = fc.record({ sku: keyPartValue(64), name: textValue, priceCents: fc.integer({ min: 0, max: 100_000_000 }), active: fc.boolean() });
    fc.assert(fc.property(productRecord, (product) => {
      const item = productToItem(product);
      expect(productFromItem(throughTheWire(item))).toEqual(product);
      expect(item).toMatchObject({ PK: 'CATALOG', SK: `PRODUCT#${product.sku}` });
      expect(productKeys.skuOf(item.SK as string)).toBe(product.sku);
      expectEntity(item, 'Product');
    }));
  });

  it('idempotency record: back while it lives, absent once expired', () => {
    fc.assert(fc.property(idempotencyRecord, fc.integer({ min: 0, max: 4_102_444_800 }), (record, now) => {
      const item = idempotencyToItem(record);
      expect(item).toMatchObject(idempotencyKeys.key(record.customerId, record.key));
      expectEntity(item, 'Idempotency record');
      expect(idempotencyFromItem(throughTheWire(item), now)).toEqual(record.expiresAt > now ? record : undefined);
    }));
  });
});

// ---- 3. cursors -----------------------------------------------------------------------------

/** A page of customer A's orders as the model makes it (plan, absorb, pageOf), with its cursors. */
function customerPage(customerId: string, monthOf: string | undefined, orders: readonly OrderRecord[], first: number) {
  const window = checkOrderWindow(customerId, { first, month: monthOf ?? null });
  const [query] = planCollection(customerId, { profile: false, addresses: false, windows: [window] });
  const items = orders.map(summaryToItem).sort((a, b) => (String(a.SK) < String(b.SK) ? 1 : -1));
  const state = emptyState();
  absorb(state, query!, [...(query!.readsTop ? [profileToItem({ id: customerId, name: 'A', email: 'a@example.com', createdAt: '2026-01-01T00:00:00.000Z' })] : []), ...items], true);
  return pageOf(customerId, state, window);
}

const ordersOf = (customerId: string, monthOf: string | undefined) =>
  fc.uniqueArray(fc.record({ id: ulid, customerId: fc.constant(customerId), placedAt: monthOf === undefined ? isoTime : fc.tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 0, max: 86_399_999 })).map(([d, ms]) => `${monthOf}-${String(d).padStart(2, '0')}T${new Date(ms).toISOString().slice(11)}`), status, totalCents: fc.nat(), lineCount: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 8, selector: (o) => o.id });

const pageOfA = fc.record({ a: ulid, month: fc.option(month, { nil: undefined }), first: fc.integer({ min: 1, max: 8 }) })
  .chain(({ a, month: m, first }) => ordersOf(a, m).map((orders) => ({ a, month: m, first, orders, page: customerPage(a, m, orders, first) })));

const refused = (run: () => unknown) => !outcome(run).ok;

describe('a cursor is accepted only by the list it was made for', () => {
  it('a customer\'s order cursors: accepted by their own list, refused for another customer and another month', () => {
    fc.assert(fc.property(pageOfA, ulid, fc.option(month, { nil: undefined }), ({ a, month: m, orders, page }, b, other) => {
      expect(page.cursors.length).toBeGreaterThan(0);
      page.cursors.forEach((cursor, i) => {
        const start = checkOrderWindow(a, { after: cursor, month: m ?? null }).start;
        expect(start).toEqual(orderKeys.summary(page.orders[i]!));
        expect(orders.map((order) => order.id)).toContain(page.orders[i]!.id);
        if (b !== a) expect(refused(() => checkOrderWindow(b, { after: cursor, month: m ?? null }))).toBe(true);
        if (other !== m) expect(refused(() => checkOrderWindow(a, { after: cursor, month: other ?? null }))).toBe(true);
      });
    }), { numRuns: 200 });
  });

  it('a customer\'s order cursors are refused by the status and SKU lists, before any request', async () => {
    await fc.assert(fc.asyncProperty(pageOfA, status, async ({ page }, s) => {
      const { table, queries } = indexTable([]);
      for (const cursor of page.cursors) {
        expect((await outcomeAsync(() => ordersByStatus(table, s, { first: 5, after: cursor }))).ok).toBe(false);
        expect((await outcomeAsync(() => ordersBySku(table, 'SKU-1', { first: 5, after: cursor }))).ok).toBe(false);
      }
      expect(queries()).toBe(0);
    }), { numRuns: 100 });
  });

  it('status cursors: accepted by their own status, refused by another status and by customer lists', async () => {
    const setup = fc.record({ s: status, other: status, first: fc.integer({ min: 1, max: 6 }), a: ulid })
      .chain((x) => fc.uniqueArray(fc.record({ id: ulid, customerId: ulid, placedAt: isoTime, status: fc.constant(x.s as OrderStatus), totalCents: fc.nat(), lineCount: fc.constant(1) }), { minLength: 1, maxLength: 12, selector: (o) => o.id })
        .map((orders) => ({ ...x, orders })));
    await fc.assert(fc.asyncProperty(setup, async ({ s, other, first, a, orders }) => {
      const { table, queries } = indexTable(orders.map(summaryToItem));
      const page = await ordersByStatus(table, s, { first });
      expect(page.orders.length).toBe(Math.min(first, orders.length));
      for (const cursor of page.cursors) {
        expect((await outcomeAsync(() => ordersByStatus(table, s, { first, after: cursor }))).ok).toBe(true);
        const before = queries();
        if (other !== s) expect((await outcomeAsync(() => ordersByStatus(table, other, { first, after: cursor }))).ok).toBe(false);
        expect(refused(() => checkOrderWindow(a, { after: cursor }))).toBe(true);
        expect((await outcomeAsync(() => ordersBySku(table, 'SKU-1', { after: cursor }))).ok).toBe(false);
        expect(queries()).toBe(before); // refused before any request
      }
      expect(STATUS_SHARDS).toBeGreaterThanOrEqual(1);
    }), { numRuns: 100 });
  });

  it('an arbitrary string is refused unless it decodes to a valid cursor of this customer\'s list (and month)', () => {
    /** The oracle, written apart from the model: what a valid cursor of customer A's list decodes to. */
    function decodesToValidCursor(cursor: string, customerId: string, monthOf: string | undefined): boolean {
      if (cursor.length === 0 || cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return false;
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        return false;
      }
      if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 1 || parsed[1] !== `orders:${customerId}:${monthOf ?? '*'}`) return false;
      const key = parsed[2] as Record<string, unknown>;
      if (typeof key !== 'object' || key === null || Array.isArray(key) || Object.keys(key).sort().join() !== 'PK,SK') return false;
      const sk = new RegExp(`^ORDER#${monthOf ?? ''}[\\d-]*T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#[0-9A-HJKMNP-TV-Z]{26}$`);
      return key.PK === `CUSTOMER#${customerId}` && typeof key.SK === 'string' && sk.test(key.SK) && /^ORDER#\d{4}-\d{2}-\d{2}T/.test(key.SK);
    }

    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    /** Forgeries of a real cursor: every field changed in turn, or left alone. */
    const forged = (a: string, m: string | undefined, cursor: string) => {
      const [version, scope, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number, string, Record<string, string>];
      return fc.oneof(
        fc.constant(cursor),
        fc.constant(encode([version, scope, key])),
        fc.constantFrom(2, 0, '1', null).map((v) => encode([v, scope, key])),
        fc.oneof(ulid, anyString).map((x) => encode([version, `orders:${x}:${m ?? '*'}`, key])),
        fc.oneof(ulid, anyString).map((x) => encode([version, scope, { ...key, PK: `CUSTOMER#${x}` }])),
        fc.oneof(month, hostile, anyString).map((x) => encode([version, scope, { ...key, SK: `ORDER#${x}${key.SK!.slice(13)}` }])),
        fc.constantFrom('#PROFILE', '#', 'x', '').map((x) => encode([version, scope, { ...key, SK: `${key.SK}${x}` }])),
        fc.constantFrom({ GSI1PK: 'STATUS#PENDING#0' }, { extra: '' }, { PK: 1 as unknown as string }).map((x) => encode([version, scope, { ...key, ...x }])),
        fc.constant(encode([version, scope, [key.PK, key.SK]])),
        fc.constant(encode([version, scope, key, 'more'])),
        fc.nat({ max: cursor.length - 1 }).map((n) => cursor.slice(0, n)),
        fc.tuple(fc.nat({ max: cursor.length - 1 }), fc.constantFrom('A', '_', '-', '=', '+', '/', '%')).map(([n, c]) => `${cursor.slice(0, n)}${c}${cursor.slice(n + 1)}`),
        fc.constant(Buffer.from(JSON.stringify([version, scope, key])).toString('base64')),
        fc.constant(`${cursor}${cursor}`),
      );
    };
    const candidates = pageOfA.chain(({ a, month: m, page }) =>
      fc.tuple(fc.constant(a), fc.constant(m), fc.oneof(
        anyString,
        fc.json().map((j) => Buffer.from(j).toString('base64url')),
        { arbitrary: fc.constantFrom(...page.cursors).chain((c) => forged(a, m, c)), weight: 3 },
      )));

    fc.assert(fc.property(candidates, ([a, m, cursor]) => {
      const result = outcome(() => checkOrderWindow(a, { after: cursor, month: m ?? null }));
      expect(result.ok).toBe(decodesToValidCursor(cursor, a, m));
      if (result.ok) {
        const start = result.value.start!;
        expect(Object.keys(start).sort()).toEqual(['PK', 'SK']);
        expect(start.PK).toBe(`CUSTOMER#${a}`);
        expect(isSummarySk(start.SK) && start.SK.startsWith(orderKeys.summaryPrefix(m))).toBe(true);
      }
    }), { numRuns: 1000 });
  });
});
