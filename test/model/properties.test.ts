/**
 * Property-based checks of the key grammar (fast-check). Pure: the write paths run against a
 * recording table that captures the transaction they would send, so the keys checked are the keys
 * the model really writes.
 *
 * No input string reaches another entity's prefix or another customer's collection: every
 *    validator either refuses (DomainError BAD_USER_INPUT, before any request) or yields a value
 *    whose keys start with the entity's own prefix, have exactly the expected number of
 *    `#`-separated parts, fit DynamoDB's key sizes, are claimed by exactly the intended entity,
 *    and sit in the intended customer's collection.
 * Codecs: codecs.test.ts; cursors: cursors.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/dynamo/table';
import {
  ADDRESS_PREFIX,
  addressKeys,
  checkCustomerId,
  checkEmail,
  checkId,
  checkIdempotencyKey,
  checkLabel,
  checkOrderId,
  checkOrderWindow,
  checkSku,
  createCustomer,
  customerKeys,
  IDEMPOTENCY_PREFIX,
  idempotencyKeys,
  isStatusSk,
  isSummarySk,
  orderKeys,
  placeOrder,
  planCollection,
  productKeys,
  putAddress,
  SYSTEM_ACTOR,
} from '../../src/model';
import {
  SEP,
  ULID,
  PK_MAX_BYTES,
  SK_MAX_BYTES,
  ulid,
  idInput,
  labelInput,
  emailInput,
  keyInput,
  skuInput,
  timestampInput,
  monthInput,
  outcome,
  outcomeAsync,
  expectKey,
  expectEntity,
  catalogPrice,
  recordingTable,
} from './arbitraries';

// ---- 1. no input escapes its entity or its collection ------------------------------------------

describe('no input string reaches another entity or another customer', () => {
  it("ids (checkId, checkCustomerId, checkOrderId): refused, or a ULID whose keys are its own customer's and order's", () => {
    fc.assert(
      fc.property(idInput, (input) => {
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
      }),
      { numRuns: 500 },
    );
  });

  /** Unicode case mapping turns some letters into ASCII ones ('ſ' → 'S'): the shape is checked first. */
  it('ids: only ASCII ULIDs (in either letter case) are accepted', () => {
    const lookalike = fc.constantFrom('ſ', 'ß', 'ﬀ', 'ﬅ', 'ﬆ');
    const spelled = fc
      .tuple(ulid, lookalike, fc.nat({ max: 24 }))
      .map(([id, l, at]) => `${id.slice(0, at)}${l}${id.slice(at + l.toUpperCase().length)}`);
    fc.assert(
      fc.property(fc.oneof(idInput, spelled), (input) => {
        const result = outcome(() => checkId(input, 'id'));
        if (result.ok) expect(input).toMatch(/^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/);
      }),
      { numRuns: 300, examples: [['ſ' + '0'.repeat(25)], ['ß' + '0'.repeat(24)]] },
    );
  });

  it('address labels (checkLabel, putAddress): refused, or keys under the intended customer, right above the profile', async () => {
    await fc.assert(
      fc.asyncProperty(ulid, labelInput, async (customerId, input) => {
        const checked = outcome(() => checkLabel(input));
        const { table, sent } = recordingTable();
        const written = await outcomeAsync(() =>
          putAddress(
            table,
            customerId,
            { label: input, street: 'Gran Vía 1', city: 'Madrid', postalCode: '28013', country: 'ES' },
            SYSTEM_ACTOR,
          ),
        );
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
        // What putAddress sent: the intended customer's profile, this address and the customer's event, nothing else.
        expect(sent).toHaveLength(1);
        const [update, put, event] = sent[0]!;
        expect(sent[0]).toHaveLength(3);
        expect(update).toMatchObject({ Update: { Key: customerKeys.profile(customerId) } });
        expect(put).toMatchObject({ Put: { Item: { ...key, customerId, label: checked.value } } });
        expect(event).toMatchObject({
          Put: { Item: { PK: `EVENT#Customer#${customerId}`, SK: 'SEQ#0000000001', payload: { label: checked.value } } },
        });
        expectEntity((event as { Put: { Item: Item } }).Put.Item, 'Outbox event');
      }),
      { numRuns: 300 },
    );
  });

  it('emails (checkEmail, createCustomer): refused, or a profile and an email guard under their own prefixes', async () => {
    await fc.assert(
      fc.asyncProperty(emailInput, async (input) => {
        const checked = outcome(() => checkEmail(input));
        const { table, sent } = recordingTable();
        const created = await outcomeAsync(() => createCustomer(table, { name: 'Ana', email: input }, SYSTEM_ACTOR));
        expect(created.ok).toBe(checked.ok);
        if (!checked.ok || !created.ok) {
          expect(sent).toEqual([]);
          return;
        }
        const customer = created.value;
        const [profile, guard, event] = sent[0]!.map((action) => ('Put' in action ? (action.Put.Item as Item) : {}));
        expect(event).toMatchObject({ PK: `EVENT#Customer#${created.value.id}`, SK: 'SEQ#0000000001', eventType: 'CustomerCreated' });
        expectEntity(event!, 'Outbox event');
        expect(profile).toMatchObject({
          PK: `CUSTOMER#${customer.id}`,
          SK: 'PROFILE',
          GSI1SK: `CUSTOMER#${customer.id}`,
          email: checked.value,
        });
        expectKey(profile!.PK, 'CUSTOMER#', 2, PK_MAX_BYTES);
        expectKey(profile!.GSI1PK, 'EMAIL#', 2, PK_MAX_BYTES);
        expectKey(profile!.GSI1SK, 'CUSTOMER#', 2, SK_MAX_BYTES);
        expectEntity(profile!, 'Customer profile');
        expect(guard).toMatchObject({ PK: profile!.GSI1PK, SK: 'EMAIL', customerId: customer.id });
        expectKey(guard!.PK, 'EMAIL#', 2, PK_MAX_BYTES);
        expectEntity(guard!, 'Email guard');
      }),
      { numRuns: 300 },
    );
  });

  it('placeOrder (customer id, idempotency key, SKUs, placedAt): refused before any request, or every key in its own place', async () => {
    // Mostly valid parts, so that a good share of orders is accepted and its keys are checked.
    const mostly = <T>(valid: fc.Arbitrary<T>, any: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: any, weight: 1 });
    const lineInput = fc.record({
      sku: mostly(fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/), skuInput),
      quantity: mostly(fc.integer({ min: 1, max: 100 }), fc.integer()),
    });
    // Staff imports are back-dated: a placedAt in the future is refused like a malformed one.
    const pastTime = fc
      .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date(), noInvalidDate: true })
      .map((d) => d.toISOString());
    const input = fc.record({
      customerId: mostly(
        fc.oneof(
          ulid,
          ulid.map((id) => id.toLowerCase()),
        ),
        idInput,
      ),
      idempotencyKey: mostly(fc.uuid(), keyInput),
      lines: fc.array(lineInput, { minLength: 0, maxLength: 5 }),
      placedAt: mostly(fc.oneof(fc.constant(null), pastTime), timestampInput),
    });
    await fc.assert(
      fc.asyncProperty(input, async (order) => {
        const { table, sent, reads } = recordingTable();
        const placed = await outcomeAsync(() => placeOrder(table, order, SYSTEM_ACTOR));
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
        // One read: the intended customer's profile and the distinct SKUs, all under the catalog's own key.
        expect(reads).toHaveLength(1);
        expect(reads[0]).toEqual([customerKeys.profile(customerId), ...[...new Set(skus)].map(productKeys.key)]);

        expect(sent).toHaveLength(1);
        // No item of the customer is written: only new items, the order's own aggregate among them.
        const [idempotency, summary, header, ...rest] = sent[0]!;
        const lines = rest.slice(0, -1);
        for (const action of sent[0]!) expect(action).toEqual({ Put: expect.anything() });
        const event = (rest.at(-1) as { Put: { Item: Item } }).Put.Item;
        expect(event).toMatchObject({ PK: `EVENT#Order#${id}`, SK: 'SEQ#0000000001', eventType: 'OrderPlaced', customerId });
        expectEntity(event, 'Outbox event');

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
        expect(summaryItem.statsPending).toBe(true); // counted by the relay, once (customer-stats.ts)

        const headerItem = (header as { Put: { Item: Item } }).Put.Item;
        expect(headerItem).toMatchObject({ ...orderKeys.header(id), eventSeq: 1 }); // the order aggregate's root
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
      }),
      { numRuns: 400 },
    );
  });

  it("months (checkOrderWindow): refused, or a begins_with prefix of orders only, in the intended customer's collection", () => {
    const first = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer(), fc.double(), fc.constant(null));
    fc.assert(
      fc.property(ulid, monthInput, first, (customerId, input, size) => {
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
      }),
      { numRuns: 500 },
    );
  });

  /** Lone surrogates are not text: stored as UTF-8, distinct ones would become one key. */
  it('key parts: every accepted text encodes to UTF-8 and back unchanged, so distinct inputs never share a key', () => {
    const validators: Array<(value: string) => string> = [
      (v) => checkLabel(v),
      (v) => checkEmail(v),
      (v) => checkIdempotencyKey(v),
      (v) => checkSku(v),
    ];
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const withSurrogate = fc
      .tuple(fc.constantFrom('home', 'ana@example.com', 'key-1', 'SKU-1'), loneSurrogate)
      .map(([v, s]) => v.replace(/^(\w)/, `$1${s}`));
    fc.assert(
      fc.property(fc.constantFrom(...validators), fc.oneof(labelInput, emailInput, keyInput, withSurrogate), (check, input) => {
        const result = outcome(() => check(input));
        if (result.ok) expect(Buffer.from(result.value, 'utf8').toString('utf8')).toBe(result.value);
      }),
      {
        numRuns: 300,
        examples: [
          [validators[0]!, '\ud800'],
          [validators[2]!, 'k\udc00'],
        ],
      },
    );
  });
});
