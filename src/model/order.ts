/**
 * Order: a summary in the customer's collection, and its own collection of header and lines.
 * placeOrder, which writes them with the catalog's prices, is in place-order.ts.
 *
 * | pattern         | index | key condition                                        | order        |
 * | --------------- | ----- | ---------------------------------------------------- | ------------ |
 * | orderDetail     | table | PK = ORDER#<orderId>                                 | —            |
 * | ordersByStatus  | GSI1  | GSI1PK = STATUS#<status>#<shard>, see status-index.ts | newest first |
 * | ordersBySku     | GSI1  | GSI1PK = SKU#<sku> (on the lines), see sku-index.ts   | newest first |
 * | (customer's orders, by month, pages) | table | PK = CUSTOMER#<id>, begins_with(SK, ORDER#…), see collection.ts | newest first |
 *
 * Keys:
 *   summary  PK = CUSTOMER#<customerId>  SK = ORDER#<placedAt ISO>#<orderId>
 *            GSI1PK = STATUS#<status>#<shard>  GSI1SK = <placedAt ISO>#<orderId>
 *   header   PK = ORDER#<orderId>        SK = ORDER
 *   line     PK = ORDER#<orderId>        SK = LINE#<lineNo, 4 digits>
 *            GSI1PK = SKU#<sku>  GSI1SK = <placedAt ISO>#<orderId>#<lineNo, 4 digits>
 * Summary and header hold the same fields and move together, in one transaction. A line's GSI1
 * keys are written with it by placeOrder; lines written before they existed got them from
 * migration 0001 (src/migrations/0001-order-lines-by-sku.ts).
 */
import type { Item, Key, Table } from '../dynamo/table';
import { TRANSACTION_LIMIT } from '../dynamo/table';
import { badInput, conflict, notFound } from './errors';
import { checkId, num, SEP, str } from './keys';
import { customerKeys } from './customer';
import { writeTransaction } from './guards';
import { cancellationReasons } from './transactions';
import { statusKeys } from './status-index';
import { declareEntity, declarePatterns, pkOf, skOf } from './declare';

export const ORDER_STATUSES = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The status machine: PENDING → PAID → SHIPPED → DELIVERED, and PENDING or PAID → CANCELLED. */
const NEXT_STATUSES: Record<OrderStatus, readonly OrderStatus[]> = {
  PENDING: ['PAID', 'CANCELLED'],
  PAID: ['SHIPPED', 'CANCELLED'],
  SHIPPED: ['DELIVERED'],
  DELIVERED: [],
  CANCELLED: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT_STATUSES[from].includes(to);
}

export const ORDER_PREFIX = `ORDER${SEP}`;
export const ORDER_SK = 'ORDER';
export const LINE_PREFIX = `LINE${SEP}`;
/** The actions of placeOrder (place-order.ts) that are not lines: customer check, idempotency record, summary, header. */
const FIXED_ACTIONS = 4;
export const MAX_LINES = TRANSACTION_LIMIT - FIXED_ACTIONS;

export const orderKeys = {
  pk: (orderId: string) => `${ORDER_PREFIX}${orderId}`,
  header: (orderId: string): Key => ({ PK: orderKeys.pk(orderId), SK: ORDER_SK }),
  line: (orderId: string, lineNo: number): Key => ({ PK: orderKeys.pk(orderId), SK: `${LINE_PREFIX}${String(lineNo).padStart(4, '0')}` }),
  summarySk: (placedAt: string, orderId: string) => `${ORDER_PREFIX}${placedAt}${SEP}${orderId}`,
  summary: (order: { customerId: string; placedAt: string; id: string }): Key => ({
    PK: customerKeys.pk(order.customerId),
    SK: orderKeys.summarySk(order.placedAt, order.id),
  }),
  /** begins_with prefix of a customer's orders, optionally of one month (`YYYY-MM`). */
  summaryPrefix: (month?: string) => `${ORDER_PREFIX}${month ?? ''}`,
  /** The order id of an order collection key, or undefined when the key is not an order's. */
  idOf: (pk: string): string | undefined => (pk.startsWith(ORDER_PREFIX) ? pk.slice(ORDER_PREFIX.length) : undefined),
};

export const SKU_PREFIX = `SKU${SEP}`;
/** The longest SKU a line may carry (it stands inside a key). */
export const SKU_MAX = 64;

/**
 * The SKU index on the order lines (sku-index.ts): every line of every order of one SKU under
 * `SKU#<sku>`, newest order first. `<placedAt>#<orderId>` is the line's order position: all lines
 * of one order share it, so they sit next to each other in the index.
 */
export const skuKeys = {
  gsi1pk: (sku: string) => `${SKU_PREFIX}${sku}`,
  orderPosition: (placedAt: string, orderId: string) => `${placedAt}${SEP}${orderId}`,
  ofLine: (order: Pick<OrderRecord, 'id' | 'placedAt'>, line: Pick<OrderLineRecord, 'lineNo' | 'sku'>) => ({
    GSI1PK: skuKeys.gsi1pk(line.sku),
    GSI1SK: `${skuKeys.orderPosition(order.placedAt, order.id)}${SEP}${String(line.lineNo).padStart(4, '0')}`,
  }),
};

const SUMMARY_SK = /^ORDER#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9A-HJKMNP-TV-Z]{26}$/;
export function isSummarySk(sk: string): boolean {
  return SUMMARY_SK.test(sk);
}
const GSI1SK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9A-HJKMNP-TV-Z]{26}$/;
export function isStatusSk(sk: string): boolean {
  return GSI1SK.test(sk);
}

export const orderSummaryEntity = declareEntity({
  name: 'Order summary',
  type: 'ORDER',
  graphql: 'Order',
  keys: { PK: 'CUSTOMER#<customerId>', SK: 'ORDER#<placedAt ISO>#<orderId>', GSI1PK: 'STATUS#<status>#<shard>', GSI1SK: '<placedAt ISO>#<orderId>' },
  matches: (item) => pkOf(item).startsWith(customerKeys.pk('')) && skOf(item).startsWith(ORDER_PREFIX),
  requiresGsi1: true,
  gsi1Of: (item) => {
    const { id, status, placedAt } = item;
    if (typeof id !== 'string' || typeof placedAt !== 'string' || !(ORDER_STATUSES as readonly unknown[]).includes(status)) return undefined;
    return statusKeys.ofOrder({ id, status: status as OrderStatus, placedAt });
  },
  expires: false,
});

export const orderHeaderEntity = declareEntity({
  name: 'Order header',
  type: 'ORDER_HEADER',
  graphql: 'Order',
  keys: { PK: 'ORDER#<orderId>', SK: 'ORDER' },
  matches: (item) => pkOf(item).startsWith(ORDER_PREFIX) && skOf(item) === ORDER_SK,
  requiresGsi1: false,
  expires: false,
});

export const orderLineEntity = declareEntity({
  name: 'Order line',
  type: 'LINE',
  graphql: 'OrderLine',
  keys: { PK: 'ORDER#<orderId>', SK: 'LINE#<lineNo, 4 digits>', GSI1PK: 'SKU#<sku>', GSI1SK: '<placedAt ISO>#<orderId>#<lineNo, 4 digits>' },
  matches: (item) => pkOf(item).startsWith(ORDER_PREFIX) && skOf(item).startsWith(LINE_PREFIX),
  // Since migration 0001 backfilled the lines written before ordersBySku existed.
  requiresGsi1: true,
  expires: false,
});

export const orderPatterns = declarePatterns(
  { name: 'orderDetail', entity: 'Order header', graphql: ['Query.order', 'Order.lines'], index: 'table', operation: 'Query', keyCondition: 'PK = ORDER#<orderId>', order: 'by sort key', bound: '1 + lines (≤ 96)' },
);

// ---- codec ---------------------------------------------------------------------------------

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

export function summaryToItem(order: OrderRecord): Item {
  return {
    ...orderKeys.summary(order),
    ...statusKeys.ofOrder(order),
    type: 'ORDER',
    ...orderFields(order),
  };
}

export function headerToItem(order: OrderRecord): Item {
  return { ...orderKeys.header(order.id), type: 'ORDER_HEADER', ...orderFields(order) };
}

/**
 * A line's table item without its GSI1 keys: how lines were stored before ordersBySku (and what
 * migration 0001 finds). placeOrder writes `indexedLineToItem`.
 */
export function lineToItem(orderId: string, line: OrderLineRecord): Item {
  return { ...orderKeys.line(orderId, line.lineNo), type: 'LINE', orderId, ...line };
}

/** A line as placeOrder writes it: with its SKU index keys (`skuKeys.ofLine`). */
export function indexedLineToItem(order: Pick<OrderRecord, 'id' | 'placedAt'>, line: OrderLineRecord): Item {
  return { ...lineToItem(order.id, line), ...skuKeys.ofLine(order, line) };
}

// ---- validation ----------------------------------------------------------------------------

export function checkOrderId(value: string, field = 'id'): string {
  return checkId(value, field);
}

export function checkStatus(value: string, field = 'status'): OrderStatus {
  if (!(ORDER_STATUSES as readonly string[]).includes(value)) throw badInput(`${field} must be one of ${ORDER_STATUSES.join(', ')}`, field);
  return value as OrderStatus;
}

// ---- access patterns -----------------------------------------------------------------------

/** orderDetail: header and lines in one Query; undefined when there is no such order. */
export async function orderDetail(table: Table, orderId: string, consistent = false): Promise<OrderRecord | undefined> {
  // At most the header and MAX_LINES lines, whatever the data: the read bound the cost estimate
  // (src/cost.ts) admits `order(id)` with. placeOrder never writes more lines than that.
  const bound = 1 + MAX_LINES;
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.query({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': orderKeys.pk(orderId) },
      ConsistentRead: consistent,
      Limit: bound - items.length,
      ExclusiveStartKey: start,
    });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < bound);
  return orderFromCollection(items);
}

/** Assembles an order from the items of its collection; undefined when the header is absent. */
export function orderFromCollection(items: readonly Item[]): OrderRecord | undefined {
  const header = items.find((item) => item.SK === ORDER_SK);
  if (!header) return undefined;
  const lines = items
    .filter((item) => typeof item.SK === 'string' && item.SK.startsWith(LINE_PREFIX))
    .map(lineFromItem)
    .sort((a, b) => a.lineNo - b.lineNo);
  return { ...orderFromItem(header), lines };
}

// ---- writes --------------------------------------------------------------------------------

const STATUS_ATTEMPTS = 5;

/**
 * updateOrderStatus: reads the header, checks the move against the status machine and moves the
 * header, the summary and the summary's GSI1 key in one transaction conditioned on the status it
 * read. A racing move makes it read again and re-check, so every copy always agrees and no
 * forbidden move ever lands. NOT_FOUND for a missing order, CONFLICT for a forbidden move.
 * `options.ownedBy` restricts the move to that customer's orders: another's reads as missing
 * (NOT_FOUND), so a caller learns nothing of orders that are not its own.
 */
export async function updateOrderStatus(table: Table, id: string, status: string, options: { ownedBy?: string | undefined } = {}): Promise<OrderRecord> {
  const orderId = checkOrderId(id);
  const to = checkStatus(status);
  for (let attempt = 0; attempt < STATUS_ATTEMPTS; attempt++) {
    const item = await table.get({ Key: orderKeys.header(orderId), ConsistentRead: true });
    const current = item ? orderFromItem(item) : undefined;
    if (!current || (options.ownedBy !== undefined && current.customerId !== options.ownedBy)) throw notFound(`no order with id ${orderId}`);
    if (!canMove(current.status, to)) {
      throw conflict(`an order cannot move from ${current.status} to ${to}`, 'status');
    }
    const values = { ':to': to, ':from': current.status };
    const names = { '#status': 'status' };
    try {
      await writeTransaction(table, [
        {
          Update: {
            Key: orderKeys.header(orderId),
            UpdateExpression: 'SET #status = :to',
            ConditionExpression: '#status = :from',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        {
          Update: {
            Key: orderKeys.summary(current),
            UpdateExpression: 'SET #status = :to, GSI1PK = :gsi1pk',
            ConditionExpression: '#status = :from',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values, ':gsi1pk': statusKeys.ofOrder({ ...current, status: to }).GSI1PK },
          },
        },
      ]);
      return { ...current, status: to };
    } catch (error) {
      if (!cancellationReasons(error)) throw error;
      // Another move landed between our read and our write: read again and re-check.
    }
  }
  throw conflict(`order ${orderId} is being changed concurrently; try again`);
}
