/**
 * The status index: order summaries by status on GSI1, write-sharded.
 *
 * The pattern `ordersByStatus` (declared on the function, bound `statusPageReadBound`) reads the
 * order summaries' GSI1 keys (`orderSummaryEntity`, entity/order.ts).
 *
 * Every new order is PENDING, so one `STATUS#PENDING` key would take every order write on one
 * index partition (1,000 WCU/s at most). Summaries spread over `STATUS_SHARDS` keys instead,
 * `STATUS#<status>#<n>` with n = hash(orderId) mod shards, so one order always stays in its shard.
 *
 * A page queries every shard in one wave (its share of the page plus a margin, newest first),
 * merges them newest first and takes `first`; a shard that may hold more of the page is read
 * further in another wave (rare). Its cursor carries each shard's position: the last item taken
 * from that shard, or where it started, or that it is exhausted. So a page costs `shards` Queries
 * (fewer once shards run dry), and paging visits every order exactly once.
 */
import type { Item, Table } from '../dynamo/table';
import { queryAll } from '../dynamo/paging';
import { GSI1 } from '../dynamo/definition';
import { checkFirst, decodeCursor, encodeCursor, orderPage, type CursorKey, type OrderPage } from './cursor';
import { badInput } from './errors';
import { pattern } from './declare';
import { orderSummaryEntity, shardOf, type OrderStatus } from './entities';
import { checkStatus, orderFromItem, type OrderRecord } from './order';
// How many GSI1 keys each status is spread over (configured at start-up: src/model/settings.ts).
import { STATUS_SHARDS } from './settings';

export const STATUS_PREFIX = orderSummaryEntity.templates.GSI1PK!.prefix;

/** The status index keys of order summaries, built from their declaration (entity/order.ts). */
export const statusKeys = {
  gsi1pk: (status: OrderStatus, shard: number) => orderSummaryEntity.templates.GSI1PK!.build({ status, shard }),
  ofOrder: (order: Pick<OrderRecord, 'id' | 'status' | 'placedAt'>) => orderSummaryEntity.gsi1(order),
};

/** Where a shard stands between pages: not started, after a key, or exhausted. */
type Position = { kind: 'start' } | { kind: 'after'; key: Record<string, string> } | { kind: 'done' };

/**
 * Items read from each shard in the first wave: its share of a page plus a margin. Orders spread
 * evenly over shards, so one wave almost always fills the page; reading `first + 1` from every
 * shard would read (and parse) `shards` times what the page needs.
 */
const SHARD_MARGIN = 8;

/** `first + 1` (to tell `hasNextPage`) and what each shard is asked for in one wave. */
function shardPlan(first: number): { wanted: number; perShard: number } {
  const wanted = first + 1;
  return { wanted, perShard: Math.min(wanted, Math.ceil(wanted / STATUS_SHARDS) + SHARD_MARGIN) };
}

/**
 * The most index items one page of `first` reads, whatever the data: `STATUS_SHARDS × (W + p)`
 * with W = first + 1 and p the per-wave share. Why: a shard is read again only while its oldest
 * item read is newer than the page's W-th item (or fewer than W items were read in all), so before
 * its last wave it holds at most W − 1 items, and a wave adds at most p. `ordersByStatus` also
 * stops reading a shard at W + p items, so the bound holds even if that argument were wrong.
 * The cost estimate (src/cost.ts) charges exactly this.
 */
export function statusPageReadBound(first: number): number {
  const { wanted, perShard } = shardPlan(first);
  return STATUS_SHARDS * (wanted + perShard);
}

/** What has been read of one shard in this call. */
interface ShardRead {
  items: Item[];
  /** Where reading continues (LastEvaluatedKey, or the cursor's position before the first read). */
  next: Record<string, unknown> | undefined;
  exhausted: boolean;
}

/**
 * ordersByStatus: one Query per live shard in one wave, merged newest first. A shard whose
 * oldest item read is still newer than the page's last item may hold more of the page: only then
 * is it read further (another wave, rare). `hasNextPage` is exact.
 */
export const ordersByStatus = pattern(
  {
    entity: 'Order summary',
    graphql: ['Query.ordersByStatus'],
    index: 'GSI1',
    operation: 'Query',
    keyCondition: 'GSI1PK = STATUS#<status>#<shard>, one Query per shard in one wave, more waves while a shard may hold more of the page',
    order: 'newest first',
    bound: (_table, _status, args) => statusPageReadBound(checkFirst(args.first)),
    boundDoc: 'shards × (W + p), W = first + 1, p = min(W, ⌈W / shards⌉ + 8): statusPageReadBound',
  },
  async function ordersByStatus(
    table: Table,
    status: string,
    args: { first?: number | null | undefined; after?: string | null | undefined },
  ): Promise<OrderPage> {
    const checked = checkStatus(status);
    const first = checkFirst(args.first);
    const scope = `status:${checked}:${STATUS_SHARDS}`;
    const positions =
      args.after == null
        ? Array.from({ length: STATUS_SHARDS }, (): Position => ({ kind: 'start' }))
        : decodePositions(args.after, scope, checked);
    const reads: ShardRead[] = positions.map((position) => ({
      items: [],
      next: position.kind === 'after' ? position.key : undefined,
      exhausted: position.kind === 'done',
    }));

    const { wanted, perShard } = shardPlan(first);
    // Per shard, never more than the estimate this page was admitted with (statusPageReadBound).
    const shardBudget = wanted + perShard;
    let merged: Array<{ item: Item; shard: number }> = [];
    let pending = reads.map((_, shard) => shard).filter((shard) => !reads[shard]!.exhausted);
    while (pending.length > 0) {
      await Promise.all(
        pending.map((shard) => {
          const read = reads[shard]!;
          return readShard(table, statusKeys.gsi1pk(checked, shard), read, Math.min(perShard, shardBudget - read.items.length));
        }),
      );
      merged = reads
        .flatMap(({ items }, shard) => items.map((item) => ({ item, shard })))
        .sort((a, b) => (String(a.item.GSI1SK) < String(b.item.GSI1SK) ? 1 : -1));
      const cut = merged.length >= wanted ? String(merged[wanted - 1]!.item.GSI1SK) : undefined;
      pending = pending.filter((shard) => {
        const read = reads[shard]!;
        return !read.exhausted && read.items.length < shardBudget && (cut === undefined || String(read.items.at(-1)?.GSI1SK) > cut);
      });
    }

    const taken = merged.slice(0, first);
    return orderPage(
      taken.map(({ item }) => orderFromItem(item)),
      merged.length > first,
      () => {
        const current = [...positions];
        const takenPerShard = new Array<number>(STATUS_SHARDS).fill(0);
        return taken.map(({ item, shard }) => {
          takenPerShard[shard]! += 1;
          const read = reads[shard]!;
          current[shard] =
            takenPerShard[shard] === read.items.length && read.exhausted ? { kind: 'done' } : { kind: 'after', key: indexKeyOf(item) };
          return encodeCursor(scope, encodePositions(current));
        });
      },
      args.after != null,
    );
  },
);

/** Reads up to `limit` more items of one shard into `read`, following LastEvaluatedKey past 1 MB pages. */
async function readShard(table: Table, gsi1pk: string, read: ShardRead, limit: number): Promise<void> {
  const page = await queryAll(
    table,
    {
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1pk },
      ScanIndexForward: false,
      ...(read.next ? { ExclusiveStartKey: read.next } : {}),
    },
    { limit },
  );
  read.items.push(...page.items);
  read.next = page.next;
  read.exhausted = page.complete;
}

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

function decodePositions(cursor: string, scope: string, status: OrderStatus): Position[] {
  const positions: Position[] = [];
  decodeCursor(cursor, scope, (key) => {
    if (Object.keys(key).length !== STATUS_SHARDS) return false;
    for (let shard = 0; shard < STATUS_SHARDS; shard++) {
      const value = key[`s${shard}`];
      if (value === undefined) return false;
      if (value === '') positions.push({ kind: 'start' });
      else if (value === '-') positions.push({ kind: 'done' });
      else {
        const [gsi1sk = '', customerId = '', ...rest] = value.split('|');
        // The shapes are the summary's declared key parts; the full key is built from them.
        const at = orderSummaryEntity.templates.GSI1SK!.parse(gsi1sk);
        if (rest.length > 0 || !at || !orderSummaryEntity.isPart('customerId', customerId) || shardOf(at.id!) !== shard) return false;
        const order = { customerId, placedAt: at.placedAt!, id: at.id!, status };
        positions.push({ kind: 'after', key: { ...orderSummaryEntity.gsi1(order), ...orderSummaryEntity.key(order) } });
      }
    }
    return true;
  });
  if (positions.length !== STATUS_SHARDS) throw badInput('after is not a cursor of this list', 'after');
  return positions;
}
