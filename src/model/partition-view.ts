/**
 * A window on one partition, for the development explorer's Table view (src/dev/explorer): the rows of
 * a partition around a sort-key range an operation read, so the page can draw the partition as the
 * single-table pattern card does, the returned rows highlighted among their neighbours.
 *
 * Not a product pattern: no GraphQL field uses it, and the development server's
 * `GET /dev/partition` is its only caller (absent in production; who may see which partition is
 * decided there, before this runs). It is declared like every read so its bound is stated: three
 * Queries sent together, the range itself and a few rows on each side of it (their Limits).
 */
import type { Item, Table } from '../dynamo/table';
import { GSI1 } from '../dynamo/definition';
import { getRequest, pattern, queryRequest, sendQuery, type QueryRequest } from './declare';
import { compareUtf8, EXAMPLE_ID } from './keys';
import { orderKeys } from './order';

/** Rows of the range itself, at most. */
export const PARTITION_WINDOW_RANGE = 40;
/** Rows on each side of the range, at most. */
export const PARTITION_WINDOW_MARGIN = 5;
/** The most rows one window reads: the declared bound. */
export const PARTITION_WINDOW_ROWS = PARTITION_WINDOW_RANGE + 2 * PARTITION_WINDOW_MARGIN;

export interface PartitionWindowArgs {
  /** The partition key value (`PK`, or `GSI1PK` for the index). */
  pk: string;
  /** The sort-key range the operation read, either end inclusive; absent: the partition's first rows. */
  from?: string | undefined;
  to?: string | undefined;
}

/** Rows in sort-key order (ascending), and whether the partition may hold rows past either edge. */
export interface PartitionWindow {
  rows: Item[];
  moreBefore: boolean;
  moreAfter: boolean;
}

/**
 * A window's Queries, sent together in one wave: without a range, the partition's first rows;
 * with one, the range itself (`BETWEEN`, its lower end first) and the rows on each side of it.
 */
function windowQueries(schema: KeySchema, args: PartitionWindowArgs): QueryRequest[] {
  const base = {
    ...(schema.index ? { IndexName: schema.index } : {}),
    ...(schema.consistent ? { ConsistentRead: true } : {}),
    ExpressionAttributeNames: { '#pk': schema.pk, '#sk': schema.sk },
  };
  if (args.from === undefined || args.to === undefined)
    return [
      queryRequest({
        ...base,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': schema.pk },
        ExpressionAttributeValues: { ':pk': args.pk },
        Limit: PARTITION_WINDOW_ROWS,
      }),
    ];
  // DynamoDB orders sort keys by their UTF-8 bytes; BETWEEN wants its lower end first.
  const [low, high] = compareUtf8(args.from, args.to) <= 0 ? [args.from, args.to] : [args.to, args.from];
  return [
    queryRequest({
      ...base,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ExpressionAttributeValues: { ':pk': args.pk, ':low': low, ':high': high },
      Limit: PARTITION_WINDOW_RANGE,
    }),
    queryRequest({
      ...base,
      KeyConditionExpression: '#pk = :pk AND #sk < :low',
      ExpressionAttributeValues: { ':pk': args.pk, ':low': low },
      ScanIndexForward: false,
      Limit: PARTITION_WINDOW_MARGIN,
    }),
    queryRequest({
      ...base,
      KeyConditionExpression: '#pk = :pk AND #sk > :high',
      ExpressionAttributeValues: { ':pk': args.pk, ':high': high },
      Limit: PARTITION_WINDOW_MARGIN,
    }),
  ];
}

interface KeySchema {
  index: string | undefined;
  pk: string;
  sk: string;
  consistent: boolean;
}

// Strongly consistent: the view follows the operation that was just run, writes included.
const TABLE_SCHEMA: KeySchema = { index: undefined, pk: 'PK', sk: 'SK', consistent: true };
// GSI reads are eventually consistent only (DynamoDB refuses ConsistentRead on a GSI).
const INDEX_SCHEMA: KeySchema = { index: GSI1, pk: 'GSI1PK', sk: 'GSI1SK', consistent: false };
/** The window the documentation shows: a range, so all three Queries. */
const EXAMPLE_WINDOW: PartitionWindowArgs = { pk: '<pk>', from: '<from>', to: '<to>' };

export const partitionWindow = pattern(
  {
    entity: 'any (development explorer)',
    graphql: [],
    request: (args: PartitionWindowArgs) => windowQueries(TABLE_SCHEMA, args),
    example: [EXAMPLE_WINDOW],
    note: 'without a range, one Query of the partition’s first rows (the same Limit in all)',
  },
  async function partitionWindow(table: Table, args: PartitionWindowArgs): Promise<PartitionWindow> {
    return windowOf(table, windowQueries(TABLE_SCHEMA, args));
  },
);

export const indexPartitionWindow = pattern(
  {
    entity: 'any (development explorer)',
    graphql: [],
    request: (args: PartitionWindowArgs) => windowQueries(INDEX_SCHEMA, args),
    example: [EXAMPLE_WINDOW],
    note: 'without a range, one Query of the partition’s first rows (the same Limit in all)',
  },
  async function indexPartitionWindow(table: Table, args: PartitionWindowArgs): Promise<PartitionWindow> {
    return windowOf(table, windowQueries(INDEX_SCHEMA, args));
  },
);

/** orderOwner's GetItem: the header's `customerId` only, consistent. */
const ownerGet = (orderId: string) =>
  getRequest({ Key: orderKeys.header(orderId), ProjectionExpression: 'customerId', ConsistentRead: true });

/**
 * Whose order partition `pk` is: its header's `customerId` (one consistent GetItem, that attribute
 * only), or undefined when `pk` names no order or the order has no header. Decided before the window
 * is read, so another customer's order costs what a missing one costs and shows nothing.
 */
export const orderOwner = pattern(
  {
    entity: 'Order header (development explorer)',
    graphql: [],
    request: (pk: string) => ownerGet(orderKeys.idOf(pk) ?? ''),
    example: [orderKeys.pk(EXAMPLE_ID)],
    note: 'none when `pk` is not an order’s',
  },
  async function orderOwner(table: Table, pk: string): Promise<string | undefined> {
    const orderId = orderKeys.idOf(pk);
    if (orderId === undefined) return undefined;
    const header = await table.get(ownerGet(orderId).input);
    return typeof header?.customerId === 'string' ? header.customerId : undefined;
  },
);

/** Sends a window's Queries together; each followed past 1 MB pages, never past its Limit. */
async function windowOf(table: Table, queries: QueryRequest[]): Promise<PartitionWindow> {
  const [range, before, after] = await Promise.all(queries.map(({ input }) => sendQuery(table, input)));
  if (!before || !after) return { rows: range!.items, moreBefore: false, moreAfter: !range!.complete };
  // A range cut at its limit leaves rows of it unread: the rows after it would not be its neighbours.
  return {
    rows: [...before.items.reverse(), ...range!.items, ...(range!.complete ? after.items : [])],
    moreBefore: !before.complete,
    moreAfter: !range!.complete || !after.complete,
  };
}
