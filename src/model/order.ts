/**
 * Order: a summary in the customer's collection, and its own collection of header and lines.
 * placeOrder, which writes them with the catalog's prices, is in place-order.ts.
 *
 * Access patterns: orderDetail and orderHeader here, ordersByStatus in status-index.ts, ordersBySku in
 * sku-index.ts, the customer's orders in collection.ts (docs/access-patterns.md lists them all).
 *
 * Keys (declared with their codecs in src/model/entity/order.ts):
 *   summary  PK = CUSTOMER#<customerId>  SK = ORDER#<placedAt ISO>#<orderId>
 *            GSI1PK = STATUS#<status>#<shard>  GSI1SK = <placedAt ISO>#<orderId>
 *   header   PK = ORDER#<orderId>        SK = ORDER
 *   line     PK = ORDER#<orderId>        SK = LINE#<lineNo, 4 digits>
 *            GSI1PK = SKU#<sku>  GSI1SK = <placedAt ISO>#<orderId>#<lineNo, 4 digits>
 * Summary and header hold the same fields and move together, in one transaction. A line's GSI1
 * keys are written with it by placeOrder; lines written before they existed got them from
 * migration 0001 (src/ops/migrations/0001-order-lines-by-sku.ts).
 */
import type { Item, Key, Table, TransactAction } from '../dynamo/table';
import { TRANSACTION_LIMIT } from '../dynamo/table';
import { badInput, conflict, notFound } from './errors';
import { checkId, EXAMPLE_ID } from './keys';
import { optimisticWrite } from './guards';
import type { EventActor } from './events';
import { eventPut, outboxEvent, sequenceOf, sequenceStep } from './outbox';
import { getRequest, pattern, queryRequest, sendQuery } from './declare';
import { ORDER_STATUSES, type OrderStatus } from './entity/parts';
import {
  lineFromItem,
  orderFromItem,
  orderHeaderEntity,
  orderLineEntity,
  orderSummaryEntity,
  type OrderLineRecord,
  type OrderRecord,
} from './entity/order';

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

export const ORDER_PREFIX = orderHeaderEntity.templates.PK.prefix;
export const ORDER_SK = orderHeaderEntity.templates.SK.text;
export const LINE_PREFIX = orderLineEntity.templates.SK.prefix;
/**
 * The actions of placeOrder's transaction (place-order.ts) that are not lines: the idempotency
 * record, the summary, the header and the OrderPlaced event (placeOrder checks that its
 * transaction holds exactly these). No item of the customer: an order is its own aggregate.
 */
export const ORDER_FIXED_ACTIONS = 4;
/** The most lines placeOrder takes: the rest of DynamoDB's 100 actions. */
export const MAX_LINES = TRANSACTION_LIMIT - ORDER_FIXED_ACTIONS;
/**
 * The most lines a STORED order holds: orders placed while the customer's sequence took an action
 * hold at most 95, those from before the outbox 96 (TRANSACTION_LIMIT − 4), like new ones. Every
 * read bound (orderDetail, the SKU index, the cost estimate's lines) uses this.
 */
export const MAX_STORED_LINES = TRANSACTION_LIMIT - 4;

/** The keys of an order's items, built from their declarations (entity/order.ts). */
export const orderKeys = {
  pk: (orderId: string) => orderHeaderEntity.templates.PK.build({ id: orderId }),
  header: (orderId: string): Key => orderHeaderEntity.key({ id: orderId }),
  line: (orderId: string, lineNo: number): Key => orderLineEntity.key({ orderId, lineNo }),
  summarySk: (placedAt: string, orderId: string) => orderSummaryEntity.templates.SK.build({ placedAt, id: orderId }),
  summary: (order: { customerId: string; placedAt: string; id: string }): Key => orderSummaryEntity.key(order),
  /** begins_with prefix of a customer's orders, optionally of one month (`YYYY-MM`). */
  summaryPrefix: (month?: string) => `${orderSummaryEntity.templates.SK.prefix}${month ?? ''}`,
  /** The order id of an order collection key, or undefined when the key is not an order's. */
  idOf: (pk: string): string | undefined => (orderHeaderEntity.templates.PK.claims(pk) ? pk.slice(ORDER_PREFIX.length) : undefined),
};

export const SKU_PREFIX = orderLineEntity.templates.GSI1PK!.prefix;
/** A line's order position in the SKU index, `<placedAt>#<orderId>`: the head of its GSI1SK. */
const ORDER_POSITION = orderLineEntity.templates.GSI1SK!.head(2);

/**
 * The SKU index on the order lines (sku-index.ts): every line of every order of one SKU under
 * `SKU#<sku>`, newest order first. `<placedAt>#<orderId>` is the line's order position: all lines
 * of one order share it, so they sit next to each other in the index.
 */
export const skuKeys = {
  gsi1pk: (sku: string) => orderLineEntity.templates.GSI1PK!.build({ sku }),
  orderPosition: (placedAt: string, orderId: string) => ORDER_POSITION.build({ placedAt, orderId }),
  /** The placedAt and order id of an order position, when it has exactly that shape. */
  parsePosition: (position: unknown) => ORDER_POSITION.parse(position) as { placedAt: string; orderId: string } | undefined,
  ofLine: (order: Pick<OrderRecord, 'id' | 'placedAt'>, line: Pick<OrderLineRecord, 'lineNo' | 'sku'>) =>
    orderLineEntity.gsi1({ orderId: order.id, placedAt: order.placedAt, lineNo: line.lineNo, sku: line.sku }),
};

/** Whether a sort key is an order summary's, exactly as declared. */
export function isSummarySk(sk: string): boolean {
  return orderSummaryEntity.templates.SK.parse(sk) !== undefined;
}
/** Whether a GSI1 sort key is an order summary's in the status index (`<placedAt>#<orderId>`). */
export function isStatusSk(sk: string): boolean {
  return orderSummaryEntity.templates.GSI1SK!.parse(sk) !== undefined;
}

// ---- codec (declared with the entities, src/model/entity/order.ts) --------------------------

export {
  headerToItem,
  indexedLineToItem,
  lineFromItem,
  lineToItem,
  orderFromItem,
  summaryToItem,
  type OrderLineRecord,
  type OrderRecord,
} from './entity/order';

// ---- validation ----------------------------------------------------------------------------

export function checkOrderId(value: string, field = 'id'): string {
  return checkId(value, field);
}

export function checkStatus(value: string, field = 'status'): OrderStatus {
  if (!(ORDER_STATUSES as readonly string[]).includes(value)) throw badInput(`${field} must be one of ${ORDER_STATUSES.join(', ')}`, field);
  return value as OrderStatus;
}

// ---- access patterns -----------------------------------------------------------------------

/**
 * The most items orderDetail reads: the header and MAX_STORED_LINES lines, whatever the data. The
 * cost estimate (src/admission/cost.ts) admits `order(id)` with it; no order holds more lines.
 */
export const ORDER_DETAIL_READ_BOUND = 1 + MAX_STORED_LINES;

/** orderDetail's Query: the order's whole collection, header and lines, at most its bound. */
const detailQuery = (orderId: string, consistent = false) =>
  queryRequest({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': orderKeys.pk(orderId) },
    ConsistentRead: consistent,
    Limit: ORDER_DETAIL_READ_BOUND,
  });

/** orderDetail: header and lines in one Query; undefined when there is no such order. */
export const orderDetail = pattern(
  {
    entity: 'Order header',
    graphql: ['Query.order', 'Query.node(s)', 'Order.lines'],
    request: detailQuery,
    example: [EXAMPLE_ID],
    note: `1 header + at most ${MAX_STORED_LINES} lines (MAX_STORED_LINES)`,
  },
  async function orderDetail(table: Table, orderId: string, consistent = false): Promise<OrderRecord | undefined> {
    const request = detailQuery(orderId, consistent).input;
    const { items } = await sendQuery(table, request);
    return orderFromCollection(items);
  },
);

/**
 * orderHeader: the header alone, one consistent GetItem: what updateOrderStatus moves (its
 * status and `eventSeq` condition the transaction).
 */
const headerGet = (orderId: string) => getRequest({ Key: orderKeys.header(orderId), ConsistentRead: true });

export const orderHeader = pattern(
  {
    entity: 'Order header',
    graphql: ['Mutation.updateOrderStatus'],
    request: headerGet,
    example: [EXAMPLE_ID],
  },
  async function orderHeader(table: Table, orderId: string): Promise<Item | undefined> {
    return table.get(headerGet(orderId).input);
  },
);

/** Assembles an order from the items of its collection; undefined when the header is absent. */
export function orderFromCollection(items: readonly Item[]): OrderRecord | undefined {
  const header = items.find(orderHeaderEntity.matches);
  if (!header) return undefined;
  const lines = items
    .filter(orderLineEntity.matches)
    .map(lineFromItem)
    .sort((a, b) => a.lineNo - b.lineNo);
  return { ...orderFromItem(header), lines };
}

// ---- writes --------------------------------------------------------------------------------

/**
 * updateOrderStatus: reads the header (`orderHeader`, one consistent GetItem), checks the move against the status
 * machine, and moves the header (with the order aggregate's `eventSeq`), the summary and the
 * summary's GSI1 key in one transaction conditioned on the status and sequence it read, with the
 * OrderStatusChanged event (the order's own sequence; `customerId` the order's customer). A racing
 * move cancels it: the cancellation returns the header as it now stands (ALL_OLD), and the move is
 * checked again against that, without another read. So every copy always agrees, no forbidden move
 * ever lands and no two events share a sequence. NOT_FOUND for a missing order, CONFLICT for a
 * forbidden move. `options.ownedBy` restricts the move to that customer's orders: another's reads
 * as missing (NOT_FOUND), so a caller learns nothing of orders that are not its own.
 */
export async function updateOrderStatus(
  table: Table,
  id: string,
  status: string,
  actor: EventActor,
  options: { ownedBy?: string | undefined } = {},
): Promise<OrderRecord> {
  const orderId = checkOrderId(id);
  const to = checkStatus(status);
  return optimisticWrite(
    table,
    await orderHeader(table, orderId),
    (item) => {
      const current = item ? orderFromItem(item) : undefined;
      if (!current || (options.ownedBy !== undefined && current.customerId !== options.ownedBy))
        throw notFound(`no order with id ${orderId}`);
      // A move that landed between the read and the write comes back as `item`: checked again against it.
      if (!canMove(current.status, to)) throw conflict(`an order cannot move from ${current.status} to ${to}`, 'status');
      return { write: updateOrderStatusActions(item!, current, to, actor, table.writeShards), then: { ...current, status: to } };
    },
    `order ${orderId} is being changed concurrently; try again`,
  );
}

/**
 * updateOrderStatus's transaction from the header as read (`header`, its status and sequence): the
 * header's status and sequence, the summary's status and GSI1 key, both conditioned on the status
 * read, and OrderStatusChanged (the order's own sequence). `shards`: the table's `writeShards`.
 */
export function updateOrderStatusActions(
  header: Item,
  current: OrderRecord,
  to: OrderStatus,
  actor: EventActor,
  shards: number,
): TransactAction[] {
  const orderId = current.id;
  const step = sequenceStep(sequenceOf(header));
  const event = outboxEvent(
    {
      eventType: 'OrderStatusChanged',
      aggregateType: 'Order',
      aggregateId: orderId,
      customerId: current.customerId,
      payload: { orderId, from: current.status, to },
    },
    step.values[':seq'] as number,
    actor,
  );
  const values = { ':to': to, ':from': current.status };
  const names = { '#status': 'status' };
  return [
    {
      Update: {
        Key: orderKeys.header(orderId),
        UpdateExpression: `SET #status = :to, ${step.set}`,
        ConditionExpression: `#status = :from AND ${step.condition}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ...step.values },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Update: {
        Key: orderKeys.summary(current),
        UpdateExpression: 'SET #status = :to, GSI1PK = :gsi1pk',
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ...values,
          ':gsi1pk': orderSummaryEntity.gsi1({ ...current, status: to }, { writeShards: shards }).GSI1PK,
        },
      },
    },
    eventPut(event),
  ];
}
