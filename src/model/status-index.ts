/**
 * The status index: order summaries by status on GSI1, write-sharded.
 *
 * The pattern `ordersByStatus` (declared on the function, bound `statusPageReadBound`) reads the
 * order summaries' GSI1 keys (`orderSummaryEntity`, entity/order.ts).
 *
 * Every new order is PENDING, so one `STATUS#PENDING` key would take every order write on one
 * index partition (1,000 WCU/s at most). Summaries spread over the table's `writeShards` keys instead
 * (`Table.writeShards`, configured by `STATUS_SHARDS`; `DEFAULT_WRITE_SHARDS`, 4, by default),
 * `STATUS#<status>#<n>` with n = hash(orderId) mod shards, so one order always stays in its shard.
 *
 * A page queries every shard in one wave (its share of the page plus a small margin, newest first),
 * merges them newest first and takes `first`; a shard that may still hold more of the page is read
 * again by range, only its items newer than the merged page's last (another wave, in a minority of
 * pages): the plan is shard-merge.ts. Its cursor carries each shard's position: the last item taken
 * from that shard, or where it started, or that it is exhausted. So a page costs `shards` Queries
 * (fewer once shards run dry, a few more when a shard ran short), and paging visits every order
 * exactly once.
 */
import { DEFAULT_WRITE_SHARDS, type Item, type Table } from '../dynamo/table';
import { GSI1 } from '../dynamo/definition';
import { checkFirst, decodeCursor, encodeCursor, orderPage, type CursorKey, type OrderPage, type PageArgs } from './cursor';
import { badInput } from './errors';
import { EXAMPLE_ID } from './keys';
import { pattern, queryRequest, sendQuery } from './declare';
import { orderSummaryEntity, shardOf, type OrderStatus } from './entities';
import { checkStatus, orderFromItem, type OrderRecord } from './order';
import { newestAcrossShards, shardedReadBound, type ShardQuery, type ShardRead } from './shard-merge';

export const STATUS_PREFIX = orderSummaryEntity.templates.GSI1PK!.prefix;

/** The status index keys of order summaries, built from their declaration (entity/order.ts). */
export const statusKeys = {
  gsi1pk: (status: OrderStatus, shard: number) => orderSummaryEntity.templates.GSI1PK!.build({ status, shard }),
  ofOrder: (order: Pick<OrderRecord, 'id' | 'status' | 'placedAt'>, shards: number) =>
    orderSummaryEntity.gsi1(order, { writeShards: shards }),
};

/** Where a shard stands between pages: not started, after a key, or exhausted. */
type Position = { kind: 'start' } | { kind: 'after'; key: Record<string, string> } | { kind: 'done' };

/**
 * The most index items one page of `first` reads on `shards` shards (the table's `writeShards`),
 * whatever the data: `shards × W` with
 * W = first + 1, since no shard is read past W items (shard-merge.ts): a shard that has given W
 * items holds the page's last one or an older one. The cost estimate (src/admission/cost.ts) charges exactly this.
 */
export function statusPageReadBound(first: number, shards: number): number {
  return shardedReadBound(first + 1, shards);
}

/**
 * One shard's Query of a page: up to `query.limit` summaries of the shard, newest first, only
 * those newer than `query.above` when set (a top-up read by range), from `query.next`.
 */
const shardQuery = (status: OrderStatus, shard: number, query: ShardQuery) =>
  queryRequest({
    IndexName: GSI1,
    KeyConditionExpression: query.above === undefined ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK > :cut',
    ExpressionAttributeValues: {
      ':pk': statusKeys.gsi1pk(status, shard),
      ...(query.above === undefined ? {} : { ':cut': query.above }),
    },
    ScanIndexForward: false,
    Limit: query.limit,
    ...(query.next ? { ExclusiveStartKey: query.next } : {}),
  });

/**
 * ordersByStatus: one Query per live shard in one wave, merged newest first. A shard whose
 * oldest item read is still newer than the page's last item may hold more of the page: only then
 * is it read further, by range (another wave). `hasNextPage` is exact.
 */
export const ordersByStatus = pattern(
  {
    entity: 'Order summary',
    graphql: ['Query.ordersByStatus'],
    request: shardQuery,
    example: ['PAID', 0, { limit: 8, next: undefined, above: `2026-09-01T10:00:00.000Z#${EXAMPLE_ID}` }],
    // Every shard's Limits stop at W = first + 1 items in all (shard-merge.ts), whatever the waves. The
    // declaration states it at the default shard count; a table of another count reads
    // statusPageReadBound(first, table.writeShards), which admission charges (src/admission/cost.ts).
    bound: (_status: string, args: PageArgs) => statusPageReadBound(checkFirst(args.first), DEFAULT_WRITE_SHARDS),
    scale: { name: 'first', args: (first): [string, PageArgs] => ['PAID', { first }] },
    note: `one Query a shard (the table's writeShards, ${DEFAULT_WRITE_SHARDS} by default) in one wave, without GSI1SK > :cut; a shard that may hold more of the page again, with it (the page's last); no shard read past first + 1 items`,
  },
  async function ordersByStatus(table: Table, status: string, args: PageArgs): Promise<OrderPage> {
    const checked = checkStatus(status);
    const first = checkFirst(args.first);
    const shards = table.writeShards;
    const scope = `status:${checked}:${shards}`;
    const positions =
      args.after == null
        ? Array.from({ length: shards }, (): Position => ({ kind: 'start' }))
        : decodePositions(args.after, scope, checked, shards);
    const wanted = first + 1;
    const { reads, merged } = await newestAcrossShards<Item>(
      positions.map((position) => ({ next: position.kind === 'after' ? position.key : undefined, exhausted: position.kind === 'done' })),
      wanted,
      (item) => String(item.GSI1SK),
      (shard, query) => sendQuery(table, shardQuery(checked, shard, query).input),
    );

    const taken = merged.slice(0, first);
    return orderPage(
      taken.map(({ item }) => orderFromItem(item)),
      merged.length > first,
      () => {
        const current = [...positions];
        const takenPerShard = new Array<number>(shards).fill(0);
        return taken.map(({ item, shard }) => {
          takenPerShard[shard]! += 1;
          const read: ShardRead<Item> = reads[shard]!;
          current[shard] =
            takenPerShard[shard] === read.items.length && read.exhausted ? { kind: 'done' } : { kind: 'after', key: indexKeyOf(item) };
          return encodeCursor(scope, encodePositions(current));
        });
      },
      args.after != null,
    );
  },
);

function indexKeyOf(item: Item): Record<string, string> {
  return { GSI1PK: String(item.GSI1PK), GSI1SK: String(item.GSI1SK), PK: String(item.PK), SK: String(item.SK) };
}

/** Positions travel as `s<n>`: '' (start), '-' (done) or `<GSI1SK>|<customerId>`. */
function encodePositions(positions: readonly Position[]): CursorKey {
  const key: CursorKey = {};
  positions.forEach((position, shard) => {
    key[`s${shard}`] =
      position.kind === 'start'
        ? ''
        : position.kind === 'done'
          ? '-'
          : `${position.key.GSI1SK}|${orderSummaryEntity.templates.PK.parse(position.key.PK)?.customerId ?? ''}`;
  });
  return key;
}

function decodePositions(cursor: string, scope: string, status: OrderStatus, shards: number): Position[] {
  const positions: Position[] = [];
  decodeCursor(cursor, scope, (key) => {
    if (Object.keys(key).length !== shards) return false;
    for (let shard = 0; shard < shards; shard++) {
      const value = key[`s${shard}`];
      if (value === undefined) return false;
      if (value === '') positions.push({ kind: 'start' });
      else if (value === '-') positions.push({ kind: 'done' });
      else {
        const [gsi1sk = '', customerId = '', ...rest] = value.split('|');
        // The shapes are the summary's declared key parts; the full key is built from them.
        const at = orderSummaryEntity.templates.GSI1SK!.parse(gsi1sk);
        if (rest.length > 0 || !at || !orderSummaryEntity.isPart('customerId', customerId) || shardOf(at.id!, shards) !== shard)
          return false;
        const order = { customerId, placedAt: at.placedAt!, id: at.id!, status };
        positions.push({ kind: 'after', key: { ...statusKeys.ofOrder(order, shards), ...orderSummaryEntity.key(order) } });
      }
    }
    return true;
  });
  if (positions.length !== shards) throw badInput('after is not a cursor of this list', 'after');
  return positions;
}
