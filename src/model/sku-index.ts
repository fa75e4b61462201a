/**
 * The SKU index: orders by SKU on GSI1, served by the order LINE items.
 *
 * The patterns ordersBySku and orderHeaders are declared on the functions below.
 *
 * Each line carries `GSI1PK = SKU#<sku>`, `GSI1SK = <placedAt ISO>#<orderId>#<lineNo>` (order.ts,
 * `skuKeys`), written by placeOrder; lines older than this pattern got them from migration 0001.
 * GSI1 projects INCLUDE and a line's order fields are not projected (nor should they be: the
 * index copy of every line would carry the whole order), so a page is two waves: one Query on the
 * index for the order positions, then one BatchGetItem of the order headers. 2 requests, 2 waves.
 *
 * Dedupe: an order that carries the SKU on several lines has several index entries, all adjacent
 * (they share `<placedAt>#<orderId>`). It appears once, at its position; a cursor names an order
 * position and the next page asks for `GSI1SK < <placedAt>#<orderId>`, which skips every line of
 * that order, so paging also visits each order exactly once. When the `first + 1` lines a Query
 * reads name fewer than `first + 1` orders (repeated lines), another Query continues below the
 * last order read, asking for as many lines as the orders still missing times the lines per
 * order seen so far: one more wave (rarely two), only when orders repeat the SKU.
 */
import type { Item, Table } from '../dynamo/table';
import { GSI1 } from '../dynamo/definition';
import { checkFirst, decodeCursor, encodeCursor, orderPage, type OrderPage, type PageArgs } from './cursor';
import { batchGetRequest, pattern, queryRequest } from './declare';
import { orderLineEntity, SKU_MAX } from './entities';
import { checkKeyPart, EXAMPLE_ID } from './keys';
import { MAX_STORED_LINES, orderFromItem, orderKeys, skuKeys, type OrderRecord } from './order';

/** Validates a SKU as it stands in a key: trimmed, 1..64 characters, no `#`. */
export function checkSku(value: string, field = 'sku'): string {
  return checkKeyPart(value, field, SKU_MAX);
}

/**
 * ordersBySku: the orders that have a line of this SKU, newest first, each once. 2 requests in 2
 * waves (a Query on GSI1, a BatchGetItem of the headers); an empty page is 1 request.
 * `hasNextPage` is exact: the index is read to `first + 1` orders or to its end.
 */
export const ordersBySku = pattern(
  {
    entity: 'Order line',
    graphql: ['Query.ordersBySku'],
    request: indexQuery,
    example: ['MUG-1', `2026-09-01T10:00:00.000Z#${EXAMPLE_ID}`, 21],
    // orderPositions' budget and first headers: the numbers its Limits are cut from.
    bound: (_sku: string, args: PageArgs) => skuPageReadBound(checkFirst(args.first)),
    scale: { name: 'first', args: (first): [string, PageArgs] => ['MUG-1', { first }] },
    note: `without GSI1SK < :before on a first page; another Query below the last order when orders repeat the SKU, within (first + 1) × ${MAX_STORED_LINES} lines in all; then orderHeaders`,
  },
  async function ordersBySku(table: Table, sku: string, args: PageArgs): Promise<OrderPage> {
    const checked = checkSku(sku);
    const first = checkFirst(args.first);
    const scope = cursorScope(checked);
    const after = args.after == null ? undefined : decodeSkuCursor(args.after, scope);

    const positions = await orderPositions(table, checked, after, first + 1, (first + 1) * MAX_STORED_LINES);
    const taken = positions.slice(0, first);
    const orders = await orderHeaders(table, taken.map(orderIdOf));
    return orderPage(
      orders,
      positions.length > first,
      () => taken.map((position) => encodeCursor(scope, { before: position })),
      after !== undefined,
    );
  },
);

/**
 * The most items one page of `first` reads, whatever the data: `(first + 1) × MAX_STORED_LINES` index
 * entries (an order holds at most MAX_STORED_LINES lines, so that many entries always name `first + 1`
 * orders; `orderPositions` never reads past it) and `first` headers. The cost estimate
 * (src/admission/cost.ts) charges exactly this.
 */
export function skuPageReadBound(first: number): number {
  return (first + 1) * MAX_STORED_LINES + first;
}

/** One Query of the SKU index: up to `limit` lines of the SKU, newest first, below the order position `before` when set. */
function indexQuery(sku: string, before: string | undefined, limit: number) {
  return queryRequest({
    IndexName: GSI1,
    KeyConditionExpression: before === undefined ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK < :before',
    ExpressionAttributeValues: { ':pk': skuKeys.gsi1pk(sku), ...(before === undefined ? {} : { ':before': before }) },
    ScanIndexForward: false,
    Limit: limit,
  });
}

/** The most lines one continuation Query asks for. */
const CONTINUATION_LIMIT = 1000;

/**
 * Up to `wanted` distinct order positions (`<placedAt>#<orderId>`) below `before`, newest first.
 * The first Query asks for `wanted` lines (one line an order is the common case, so it reads no
 * more than it needs); a continuation starts below the last order read (its other lines may
 * follow, and must be skipped) and asks for the missing orders times the lines per order seen.
 * Reading a few orders too many costs nothing but their index entries: the caller slices.
 *
 * `budget` caps the index entries read in all (every Query's Limit is at most what is left of
 * it), so a page never reads more than the estimate it was admitted with. The caller passes
 * `wanted × MAX_STORED_LINES`: the lines read belong to the orders found, at most MAX_STORED_LINES each, so
 * while fewer than `wanted` orders are found at most `(wanted − 1) × MAX_STORED_LINES` are spent, and
 * what is left always suffices for the missing ones. The budget never cuts a page short.
 */
async function orderPositions(table: Table, sku: string, before: string | undefined, wanted: number, budget: number): Promise<string[]> {
  const positions: string[] = [];
  let bound = before;
  let linesRead = 0;
  while (linesRead < budget) {
    const missing = wanted - positions.length;
    const perOrder = positions.length === 0 ? 1 : linesRead / positions.length;
    const limit = Math.min(CONTINUATION_LIMIT, budget - linesRead, Math.max(missing, Math.ceil(missing * perOrder)));
    const page = await table.query(indexQuery(sku, bound, limit).input);
    const items = page.Items ?? [];
    linesRead += items.length;
    for (const item of items) {
      const position = positionOf(item);
      // Lines of one order are adjacent in the index: dedupe against the last one kept.
      if (positions.at(-1) !== position) positions.push(position);
    }
    if (!page.LastEvaluatedKey || items.length === 0 || positions.length >= wanted) return positions;
    bound = positions.at(-1);
  }
  return positions;
}

/** orderHeaders: the headers of `orderIds`, in that order: one BatchGetItem (≤ 100 keys), none for no ids. */
const headersGet = (orderIds: readonly string[]) => batchGetRequest(orderIds.map(orderKeys.header), { consistent: false });

export const orderHeaders = pattern(
  {
    entity: 'Order header',
    graphql: ['Query.ordersBySku'],
    request: headersGet,
    example: [[EXAMPLE_ID]],
    scale: {
      name: 'orders',
      args: (n): [string[]] => [Array.from({ length: n }, (_, i) => `${EXAMPLE_ID.slice(0, -2)}${String(i).padStart(2, '0')}`)],
    },
    note: 'the orders of one ordersBySku page (first ≤ 100: one call), its last wave',
  },
  async function orderHeaders(table: Table, orderIds: readonly string[]): Promise<OrderRecord[]> {
    if (orderIds.length === 0) return [];
    const request = headersGet(orderIds);
    const headers = await table.batchGet(request.keys, { consistent: request.consistent });
    const byId = new Map(headers.map((item) => [String(item.id), orderFromItem(item)]));
    return orderIds.map((orderId) => {
      const order = byId.get(orderId);
      if (!order) throw new Error(`order ${orderId} has lines in the SKU index but no header`);
      return order;
    });
  },
);

/** `<placedAt>#<orderId>` of an index entry `<placedAt>#<orderId>#<lineNo>` (the line's declared GSI1SK). */
function positionOf(item: Item): string {
  const parts = orderLineEntity.templates.GSI1SK!.parse(item.GSI1SK);
  if (!parts) throw new Error(`line ${String(item.PK)}/${String(item.SK)} has a malformed GSI1SK ${String(item.GSI1SK)}`);
  return skuKeys.orderPosition(parts.placedAt!, parts.orderId!);
}

function orderIdOf(position: string): string {
  return skuKeys.parsePosition(position)!.orderId;
}

function cursorScope(sku: string): string {
  return `sku:${sku}`;
}

/** A cursor names the order position the page ended at, for this SKU only. */
function decodeSkuCursor(cursor: string, scope: string): string {
  const key = decodeCursor(cursor, scope, (k) => Object.keys(k).length === 1 && skuKeys.parsePosition(k.before) !== undefined);
  return key.before as string;
}
