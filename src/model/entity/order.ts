/**
 * Order: the summary in the customer's collection, and the order's own collection of header and
 * lines. Keys, lifecycle and codecs, declared once. Operations: src/model/order.ts (and
 * place-order.ts, status-index.ts, sku-index.ts).
 */
import type { Item } from '../../dynamo/table';
import { defineEntity } from '../declare';
import { num, str } from '../keys';
import { customerId, digits, ID, ORDER_STATUSES, orderId, placedAt, shardOf, sku, type OrderStatus } from './parts';

export const orderSummaryEntity = defineEntity({
  name: 'Order summary',
  type: 'ORDER',
  graphql: 'Order',
  parts: {
    customerId,
    placedAt,
    id: { shape: ID, doc: 'orderId' },
    status: { shape: ORDER_STATUSES.join('|') },
    // The shard count is the table's (`Table.writeShards`), passed as the key context.
    shard: {
      shape: '\\d{1,2}',
      from: (item, context) => (typeof item.id === 'string' && context ? shardOf(item.id, context.writeShards) : undefined),
    },
  },
  table: { PK: 'CUSTOMER#{customerId}', SK: 'ORDER#{placedAt}#{id}' },
  gsi1: { GSI1PK: 'STATUS#{status}#{shard}', GSI1SK: '{placedAt}#{id}', required: true },
  expires: false,
  codec: { toItem: summaryToItem, fromItem: orderFromItem },
});

export const orderHeaderEntity = defineEntity({
  name: 'Order header',
  type: 'ORDER_HEADER',
  graphql: 'Order',
  parts: { id: { shape: ID, doc: 'orderId' } },
  table: { PK: 'ORDER#{id}', SK: 'ORDER' },
  expires: false,
  codec: { toItem: headerToItem, fromItem: orderFromItem },
});

export const orderLineEntity = defineEntity({
  name: 'Order line',
  type: 'LINE',
  graphql: 'OrderLine',
  parts: { orderId, lineNo: digits(4, 'lineNo, 4 digits'), sku, placedAt },
  table: { PK: 'ORDER#{orderId}', SK: 'LINE#{lineNo}' },
  // Required since migration 0001 backfilled the lines written before ordersBySku existed. The
  // order position (placedAt) is the order's, not an attribute of the line.
  gsi1: { GSI1PK: 'SKU#{sku}', GSI1SK: '{placedAt}#{orderId}#{lineNo}', required: true, fromItem: false },
  expires: false,
  codec: { toItem: indexedLineToItem, fromItem: lineFromItem },
});

/** An order's fields, as its summary and its header both hold them. */
export function orderFromItem(item: Item) {
  return {
    id: str(item, 'id'),
    customerId: str(item, 'customerId'),
    placedAt: str(item, 'placedAt'),
    status: str(item, 'status') as OrderStatus,
    totalCents: num(item, 'totalCents'),
    lineCount: num(item, 'lineCount'),
  };
}
/** An order as the model hands it out; `lines` is present when they were read or written with it. */
export type OrderRecord = ReturnType<typeof orderFromItem> & { lines?: OrderLineRecord[] };

export function lineFromItem(item: Item) {
  return {
    lineNo: num(item, 'lineNo'),
    sku: str(item, 'sku'),
    quantity: num(item, 'quantity'),
    unitPriceCents: num(item, 'unitPriceCents'),
  };
}
export type OrderLineRecord = ReturnType<typeof lineFromItem>;

function orderFields(order: OrderRecord) {
  return {
    id: order.id,
    customerId: order.customerId,
    placedAt: order.placedAt,
    status: order.status,
    totalCents: order.totalCents,
    lineCount: order.lineCount,
  };
}

/** An order's summary item, its status key on one of `shards` shards (the table's `writeShards`). */
export function summaryToItem(order: OrderRecord, shards: number): Item {
  return { ...orderSummaryEntity.itemKeys(order, { writeShards: shards }), ...orderFields(order) };
}

export function headerToItem(order: OrderRecord): Item {
  return { ...orderHeaderEntity.itemKeys({ id: order.id }), ...orderFields(order) };
}

/**
 * A line's table item without its GSI1 keys: how lines were stored before ordersBySku (and what
 * migration 0001 finds). placeOrder writes `indexedLineToItem`.
 */
export function lineToItem(orderId: string, line: OrderLineRecord): Item {
  return { ...orderLineEntity.key({ orderId, lineNo: line.lineNo }), type: orderLineEntity.type, orderId, ...line };
}

/** A line as placeOrder writes it: with its SKU index keys. */
export function indexedLineToItem(order: Pick<OrderRecord, 'id' | 'placedAt'>, line: OrderLineRecord): Item {
  return {
    ...lineToItem(order.id, line),
    ...orderLineEntity.gsi1({ orderId: order.id, placedAt: order.placedAt, lineNo: line.lineNo, sku: line.sku }),
  };
}
