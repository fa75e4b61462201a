/**
 * A window on one partition, for the development explorer's Table view (src/dev/explorer): the rows of
 * a partition around a sort-key range an operation read, so the page can draw the partition as the
 * single-table pattern card does, the returned rows highlighted among their neighbours.
 *
 * Not a product pattern: no GraphQL field uses it, and the development server's
 * `GET /dev/partition` is its only caller (absent in production; who may see which partition is
 * decided there, before this runs). It is declared like every read so its bound is stated: three
 * Queries sent together, the range itself (`Limit 40`) and up to 5 rows on each side of it.
 */
import type { Item, Table } from '../dynamo/table';
import { queryAll } from '../dynamo/paging';
import { GSI1 } from '../dynamo/definition';
import { pattern } from './declare';
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

export const partitionWindow = pattern(
  {
    entity: 'any (development explorer)',
    graphql: [],
    index: 'table',
    operation: 'Query',
    keyCondition: 'PK = <pk>: SK BETWEEN <from> AND <to>, SK < <from> (descending), SK > <to>',
    order: 'by sort key',
    bound: () => PARTITION_WINDOW_ROWS,
    boundDoc: `3 Queries: Limit ${PARTITION_WINDOW_RANGE} + ${PARTITION_WINDOW_MARGIN} + ${PARTITION_WINDOW_MARGIN}`,
  },
  async function partitionWindow(table: Table, args: PartitionWindowArgs): Promise<PartitionWindow> {
    // Strongly consistent: the view follows the operation that was just run, writes included.
    return windowOf(table, { index: undefined, pk: 'PK', sk: 'SK', consistent: true }, args);
  },
);

export const indexPartitionWindow = pattern(
  {
    entity: 'any (development explorer)',
    graphql: [],
    index: 'GSI1',
    operation: 'Query',
    keyCondition: 'GSI1PK = <pk>: GSI1SK BETWEEN <from> AND <to>, GSI1SK < <from> (descending), GSI1SK > <to>',
    order: 'by sort key',
    bound: () => PARTITION_WINDOW_ROWS,
    boundDoc: `3 Queries: Limit ${PARTITION_WINDOW_RANGE} + ${PARTITION_WINDOW_MARGIN} + ${PARTITION_WINDOW_MARGIN}`,
  },
  async function indexPartitionWindow(table: Table, args: PartitionWindowArgs): Promise<PartitionWindow> {
    // GSI reads are eventually consistent only (DynamoDB refuses ConsistentRead on a GSI).
    return windowOf(table, { index: GSI1, pk: 'GSI1PK', sk: 'GSI1SK', consistent: false }, args);
  },
);

/**
 * Whose order partition `pk` is: its header's `customerId` (one consistent GetItem, that attribute
 * only), or undefined when `pk` names no order or the order has no header. Decided before the window
 * is read, so another customer's order costs what a missing one costs and shows nothing.
 */
export const orderOwner = pattern(
  {
    entity: 'Order header (development explorer)',
    graphql: [],
    index: 'table',
    operation: 'GetItem',
    keyCondition: 'PK = ORDER#<orderId>, SK = ORDER: customerId only, ConsistentRead',
    order: '—',
    bound: () => 1,
    boundDoc: '1 GetItem',
  },
  async function orderOwner(table: Table, pk: string): Promise<string | undefined> {
    const orderId = orderKeys.idOf(pk);
    if (orderId === undefined) return undefined;
    const header = await table.get({ Key: orderKeys.header(orderId), ProjectionExpression: 'customerId', ConsistentRead: true });
    return typeof header?.customerId === 'string' ? header.customerId : undefined;
  },
);

interface KeySchema {
  index: string | undefined;
  pk: string;
  sk: string;
  consistent: boolean;
}

async function windowOf(table: Table, schema: KeySchema, args: PartitionWindowArgs): Promise<PartitionWindow> {
  const base = {
    ...(schema.index ? { IndexName: schema.index } : {}),
    ...(schema.consistent ? { ConsistentRead: true } : {}),
    ExpressionAttributeNames: { '#pk': schema.pk, '#sk': schema.sk },
  };
  if (args.from === undefined || args.to === undefined) {
    const read = await queryAll(
      table,
      {
        ...base,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': schema.pk },
        ExpressionAttributeValues: { ':pk': args.pk },
      },
      { limit: PARTITION_WINDOW_ROWS },
    );
    return { rows: read.items, moreBefore: false, moreAfter: !read.complete };
  }
  // DynamoDB orders sort keys by their UTF-8 bytes; BETWEEN wants its lower end first.
  const [low, high] = Buffer.compare(Buffer.from(args.from), Buffer.from(args.to)) <= 0 ? [args.from, args.to] : [args.to, args.from];
  const [range, before, after] = await Promise.all([
    queryAll(
      table,
      {
        ...base,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': args.pk, ':low': low, ':high': high },
      },
      { limit: PARTITION_WINDOW_RANGE },
    ),
    queryAll(
      table,
      {
        ...base,
        KeyConditionExpression: '#pk = :pk AND #sk < :low',
        ExpressionAttributeValues: { ':pk': args.pk, ':low': low },
        ScanIndexForward: false,
      },
      { limit: PARTITION_WINDOW_MARGIN },
    ),
    queryAll(
      table,
      { ...base, KeyConditionExpression: '#pk = :pk AND #sk > :high', ExpressionAttributeValues: { ':pk': args.pk, ':high': high } },
      { limit: PARTITION_WINDOW_MARGIN },
    ),
  ]);
  // A range cut at its limit leaves rows of it unread: the rows after it would not be its neighbours.
  return {
    rows: [...before.items.reverse(), ...range.items, ...(range.complete ? after.items : [])],
    moreBefore: !before.complete,
    moreAfter: !range.complete || !after.complete,
  };
}
