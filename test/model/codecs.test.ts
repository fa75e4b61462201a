/**
 * Every codec round-trips, through DynamoDB's wire format (marshall/unmarshall) too (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WRITE_SHARDS,
  ADDRESS_PREFIX,
  addressFromItem,
  addressKeys,
  addressToItem,
  customerFromItem,
  customerKeys,
  headerToItem,
  idempotencyFromItem,
  idempotencyKeys,
  idempotencyToItem,
  indexedLineToItem,
  isStatusSk,
  isSummarySk,
  lineFromItem,
  lineToItem,
  MAX_LINES,
  orderFromCollection,
  orderFromItem,
  orderKeys,
  productFromItem,
  productKeys,
  productToItem,
  customerToItem,
  shardOf,
  summaryToItem,
  type AddressRecord,
  type CustomerRecord,
  type IdempotencyRecord,
  type OrderLineRecord,
  type OrderRecord,
  type ProductRecord,
} from '../../src/model';
import { SEP, INT_MAX, ulid, isoTime, status, textValue, keyPartValue, expectEntity, throughTheWire } from './arbitraries';

// ---- 2. codecs ------------------------------------------------------------------------------

const customerRecord: fc.Arbitrary<CustomerRecord> = fc.record({ id: ulid, name: textValue, email: fc.emailAddress(), createdAt: isoTime });
const addressRecord: fc.Arbitrary<AddressRecord> = fc.record({
  label: keyPartValue(40),
  street: textValue,
  city: textValue,
  postalCode: textValue,
  country: textValue,
});
const orderRecord: fc.Arbitrary<OrderRecord> = fc.record({
  id: ulid,
  customerId: ulid,
  placedAt: isoTime,
  status,
  totalCents: fc.integer({ min: 0, max: INT_MAX }),
  lineCount: fc.integer({ min: 1, max: MAX_LINES }),
});
const lineRecord = (lineNo: fc.Arbitrary<number>): fc.Arbitrary<OrderLineRecord> =>
  fc.record({
    lineNo,
    sku: keyPartValue(64),
    quantity: fc.integer({ min: 1, max: 100_000 }),
    unitPriceCents: fc.integer({ min: 0, max: 100_000_000 }),
  });
const idempotencyRecord: fc.Arbitrary<IdempotencyRecord> = fc.record({
  customerId: ulid,
  key: keyPartValue(128),
  orderId: ulid,
  fingerprint: fc.base64String({ minLength: 4, maxLength: 44 }),
  expiresAt: fc.integer({ min: 0, max: 4_102_444_800 }),
});

describe('every codec round-trips, through the DynamoDB wire format', () => {
  it('customer profile', () => {
    fc.assert(
      fc.property(customerRecord, (customer) => {
        const item = customerToItem(customer);
        expect(customerFromItem(throughTheWire(item))).toEqual(customer);
        expect(item).toMatchObject(customerKeys.profile(customer.id));
        expect(customerKeys.idOf(item.PK as string)).toBe(customer.id);
        expect(item.GSI1PK).toBe(`EMAIL#${customer.email.toLowerCase()}`);
        expectEntity(item, 'Customer profile');
      }),
    );
  });

  it('address', () => {
    fc.assert(
      fc.property(ulid, addressRecord, (customerId, address) => {
        const item = addressToItem(customerId, address);
        expect(addressFromItem(throughTheWire(item))).toEqual(address);
        expect(item).toMatchObject(addressKeys.key(customerId, address.label));
        expect((item.SK as string).slice(ADDRESS_PREFIX.length)).toBe(address.label);
        expectEntity(item, 'Address');
      }),
    );
  });

  it('order summary and header, and their keys', () => {
    fc.assert(
      fc.property(orderRecord, (order) => {
        const summary = summaryToItem(order, DEFAULT_WRITE_SHARDS);
        const header = headerToItem(order);
        expect(orderFromItem(throughTheWire(summary))).toEqual(order);
        expect(orderFromItem(throughTheWire(header))).toEqual(order);
        expect(summary).toMatchObject({
          ...orderKeys.summary(order),
          GSI1PK: `STATUS#${order.status}#${shardOf(order.id, DEFAULT_WRITE_SHARDS)}`,
          GSI1SK: `${order.placedAt}#${order.id}`,
        });
        const [, placedAt, id] = (summary.SK as string).split(SEP);
        expect({ placedAt, id, customerId: customerKeys.idOf(summary.PK as string) }).toEqual({
          placedAt: order.placedAt,
          id: order.id,
          customerId: order.customerId,
        });
        expect(isSummarySk(summary.SK as string) && isStatusSk(summary.GSI1SK as string)).toBe(true);
        expect(header).toMatchObject(orderKeys.header(order.id));
        expectEntity(summary, 'Order summary');
        expectEntity(header, 'Order header');
      }),
    );
  });

  it('order lines, alone and as the order collection (header + lines in any order)', () => {
    const lines = fc
      .uniqueArray(fc.integer({ min: 1, max: MAX_LINES }), { minLength: 1, maxLength: 8 })
      .chain((numbers) => fc.tuple(...numbers.map((n) => lineRecord(fc.constant(n)))));
    fc.assert(
      fc.property(orderRecord, lines, fc.integer(), (order, orderLines, seed) => {
        for (const line of orderLines) {
          expect(lineFromItem(throughTheWire(lineToItem(order.id, line)))).toEqual(line);
          const indexed = indexedLineToItem(order, line);
          expect(lineFromItem(throughTheWire(indexed))).toEqual(line);
          expect(indexed).toMatchObject({
            ...orderKeys.line(order.id, line.lineNo),
            GSI1PK: `SKU#${line.sku}`,
            GSI1SK: `${order.placedAt}#${order.id}#${String(line.lineNo).padStart(4, '0')}`,
          });
          expect(Number((indexed.SK as string).slice('LINE#'.length))).toBe(line.lineNo);
          expectEntity(indexed, 'Order line');
        }
        const items = [headerToItem(order), ...orderLines.map((line) => indexedLineToItem(order, line))].map(throughTheWire);
        const shuffled = items
          .map((item, i) => ({ item, k: (i * 7919 + seed) % 104729 }))
          .sort((a, b) => a.k - b.k)
          .map(({ item }) => item);
        expect(orderFromCollection(shuffled)).toEqual({ ...order, lines: [...orderLines].sort((a, b) => a.lineNo - b.lineNo) });
      }),
    );
  });

  it('product, and its key in the one catalog collection', () => {
    const productRecord: fc.Arbitrary<ProductRecord> = fc.record({
      sku: keyPartValue(64),
      name: textValue,
      priceCents: fc.integer({ min: 0, max: 100_000_000 }),
      active: fc.boolean(),
    });
    fc.assert(
      fc.property(productRecord, (product) => {
        const item = productToItem(product);
        expect(productFromItem(throughTheWire(item))).toEqual(product);
        expect(item).toMatchObject({ PK: 'CATALOG', SK: `PRODUCT#${product.sku}` });
        expect(productKeys.skuOf(item.SK as string)).toBe(product.sku);
        expectEntity(item, 'Product');
      }),
    );
  });

  it('idempotency record: back while it lives, absent once expired', () => {
    fc.assert(
      fc.property(idempotencyRecord, fc.integer({ min: 0, max: 4_102_444_800 }), (record, now) => {
        const item = idempotencyToItem(record);
        expect(item).toMatchObject(idempotencyKeys.key(record.customerId, record.key));
        expectEntity(item, 'Idempotency record');
        expect(idempotencyFromItem(throughTheWire(item), now)).toEqual(record.expiresAt > now ? record : undefined);
      }),
    );
  });
});
