/**
 * Data access of the multi-table baseline, and its per-operation DataLoaders. Written as a
 * competent team would on four tables: every request asks for ReturnConsumedCapacity, keys of one
 * tick are batched (BatchGetItem, 100 keys a call, UnprocessedKeys retried), lists are read with a
 * bounded `Limit` on an index, and pages follow `LastEvaluatedKey` only when DynamoDB cut one short.
 * With a `Hedger` (the hedged runs of the benchmark), every read is hedged by the product's own
 * mechanism (src/dynamo/hedge.ts), each BatchGetItem call on its own, exactly as the product's Table does.
 */
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import { BatchGetCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { INDEX, TABLES } from './tables';
import { type Hedger, newestAcrossShards, type ShardQuery } from 'single-table-graphql';

export interface CustomerRow {
  id: string;
  name: string;
  email: string;
  emailLower: string;
  createdAt: string;
}
export interface AddressRow {
  customerId: string;
  label: string;
  street: string;
  city: string;
  postalCode: string;
  country: string;
}
export interface OrderRow {
  id: string;
  customerId: string;
  placedAt: string;
  status: string;
  totalCents: number;
  lineCount: number;
}
export interface LineRow {
  orderId: string;
  lineNo: number;
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export interface OrderPage {
  orders: OrderRow[];
  cursors: string[];
  hasNextPage: boolean;
}

export interface WindowArgs {
  first?: number | null;
  after?: string | null;
  month?: string | null;
}

const BATCH_GET_LIMIT = 100;
const FIRST_MAX = 100;

export class MultiTableStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly hedger?: Hedger,
    /** The status index's shards, hashed as the product's (`shardOf`); 1: the unsharded `byStatus` index. */
    private readonly statusShards = 1,
  ) {}

  /** One read request, hedged when the server has a hedger (each copy with its own abort signal). */
  private async read<T>(operation: 'GetItem' | 'Query' | 'BatchGetItem', send: (options?: { abortSignal: AbortSignal }) => Promise<T>) {
    if (!this.hedger) return send();
    return (await this.hedger.run(operation, (abortSignal) => send({ abortSignal }))).value;
  }

  /** Items by id: one GetItem for one key, else BatchGetItem calls sent together. */
  async getByIds<T>(table: string, ids: readonly string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    if (ids.length === 0) return found;
    if (ids.length === 1) {
      const { Item } = await this.read('GetItem', (o) =>
        this.doc.send(new GetCommand({ TableName: table, Key: { id: ids[0] }, ReturnConsumedCapacity: 'TOTAL' }), o),
      );
      if (Item) found.set(String(Item.id), Item as T);
      return found;
    }
    let pending: Array<{ id: string }> = [...new Set(ids)].map((id) => ({ id }));
    for (let round = 0; pending.length > 0; round++) {
      if (round >= 10) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** round) * (0.5 + Math.random() / 2)));
      const calls: Array<Array<{ id: string }>> = [];
      for (let i = 0; i < pending.length; i += BATCH_GET_LIMIT) calls.push(pending.slice(i, i + BATCH_GET_LIMIT));
      const answers = await Promise.all(
        calls.map((Keys) =>
          this.read('BatchGetItem', (o) =>
            this.doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys } }, ReturnConsumedCapacity: 'TOTAL' }), o),
          ),
        ),
      );
      pending = [];
      for (const answer of answers) {
        for (const item of answer.Responses?.[table] ?? []) found.set(String(item.id), item as T);
        pending.push(...((answer.UnprocessedKeys?.[table]?.Keys ?? []) as Array<{ id: string }>));
      }
    }
    return found;
  }

  /** Every item of one partition (addresses of a customer, lines of an order), in key order. */
  async queryAll<T>(input: Omit<QueryCommandInput, 'ReturnConsumedCapacity'>): Promise<T[]> {
    const items: T[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.read('Query', (o) =>
        this.doc.send(new QueryCommand({ ...input, ExclusiveStartKey: start, ReturnConsumedCapacity: 'TOTAL' }), o),
      );
      items.push(...((page.Items ?? []) as T[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /** A page of `first` items (+1 to know whether there is a next page), newest first. */
  async queryPage(
    input: Omit<QueryCommandInput, 'ReturnConsumedCapacity' | 'Limit' | 'ScanIndexForward'>,
    first: number,
  ): Promise<{ items: OrderRow[]; hasNextPage: boolean }> {
    const items: OrderRow[] = [];
    let start = input.ExclusiveStartKey;
    const limit = first + 1;
    do {
      const page = await this.read('Query', (o) =>
        this.doc.send(
          new QueryCommand({
            ...input,
            ScanIndexForward: false,
            Limit: limit - items.length,
            ExclusiveStartKey: start,
            ReturnConsumedCapacity: 'TOTAL',
          }),
          o,
        ),
      );
      items.push(...((page.Items ?? []) as OrderRow[]));
      start = page.LastEvaluatedKey;
    } while (start && items.length < limit);
    return { items: items.slice(0, first), hasNextPage: items.length > first };
  }

  addresses(customerId: string): Promise<AddressRow[]> {
    return this.queryAll<AddressRow>({
      TableName: TABLES.addresses,
      KeyConditionExpression: 'customerId = :id',
      ExpressionAttributeValues: { ':id': customerId },
    });
  }

  lines(orderId: string): Promise<LineRow[]> {
    return this.queryAll<LineRow>({
      TableName: TABLES.lines,
      KeyConditionExpression: 'orderId = :id',
      ExpressionAttributeValues: { ':id': orderId },
    });
  }

  async customerByEmail(email: string): Promise<CustomerRow | undefined> {
    const { Items = [] } = await this.read('Query', (o) =>
      this.doc.send(
        new QueryCommand({
          TableName: TABLES.customers,
          IndexName: INDEX.byEmail,
          KeyConditionExpression: 'emailLower = :e',
          ExpressionAttributeValues: { ':e': email.trim().toLowerCase() },
          Limit: 1,
          ReturnConsumedCapacity: 'TOTAL',
        }),
        o,
      ),
    );
    return Items[0] as CustomerRow | undefined;
  }

  /** A customer's orders, newest first, optionally of one month, from a cursor. */
  async customerOrders(customerId: string, args: WindowArgs): Promise<OrderPage> {
    const first = checkFirst(args.first);
    const month = args.month ?? undefined;
    if (month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw badInput('month must be a month such as 2026-09', 'month');
    const scope = `c:${customerId}:${month ?? '*'}`;
    const start = args.after == null ? undefined : decodeCursor(args.after, scope);
    const { items, hasNextPage } = await this.queryPage(
      {
        TableName: TABLES.orders,
        IndexName: INDEX.byCustomer,
        KeyConditionExpression: month ? 'customerId = :c AND begins_with(placedAt, :m)' : 'customerId = :c',
        ExpressionAttributeValues: month ? { ':c': customerId, ':m': month } : { ':c': customerId },
        ExclusiveStartKey: start,
      },
      first,
    );
    return lazyPage(items, hasNextPage, () =>
      items.map((o) => encodeCursor(scope, { id: o.id, customerId: o.customerId, placedAt: o.placedAt })),
    );
  }

  async ordersByStatus(status: string, args: WindowArgs): Promise<OrderPage> {
    if (this.statusShards > 1) return this.ordersByStatusSharded(status, args);
    const first = checkFirst(args.first);
    const scope = `s:${status}`;
    const start = args.after == null ? undefined : decodeCursor(args.after, scope);
    const { items, hasNextPage } = await this.queryPage(
      {
        TableName: TABLES.orders,
        IndexName: INDEX.byStatus,
        KeyConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status },
        ExclusiveStartKey: start,
      },
      first,
    );
    const orders = items.map((o) => ({ ...o, status }));
    return lazyPage(orders, hasNextPage, () => orders.map((o) => encodeCursor(scope, { id: o.id, status, placedAt: o.placedAt })));
  }

  /**
   * The status index write-sharded as the product's (`statusShard` = `<status>#<shardOf(id)>`), read
   * with the product's plan (src/model/shard-merge.ts): each shard's share plus a margin in one wave,
   * a shard that ran short again above the cut. Cursor: each shard's last key taken, '' or '-' (done).
   */
  private async ordersByStatusSharded(status: string, args: WindowArgs): Promise<OrderPage> {
    const first = checkFirst(args.first);
    const shards = this.statusShards;
    const scope = `s:${status}:${shards}`;
    const at = args.after == null ? Array<string>(shards).fill('') : Object.values(decodeCursor(args.after, scope));
    if (at.length !== shards) throw badInput('after is not a cursor of this list', 'after');
    const keyOf = (shard: number, position: string) => {
      const [placedAt, id] = position.split('|');
      return { statusShard: `${status}#${shard}`, placedAt, id };
    };
    const { reads, merged } = await newestAcrossShards<OrderRow>(
      at.map((position, shard) => ({
        next: position && position !== '-' ? keyOf(shard, position) : undefined,
        exhausted: position === '-',
      })),
      first + 1,
      (row) => row.placedAt,
      (shard, query) => this.readStatusShard(`${status}#${shard}`, query),
    );
    const taken = merged.slice(0, first);
    const orders = taken.map(({ item }) => ({ ...item, status }));
    return lazyPage(orders, merged.length > first, () => {
      const current = [...at];
      const takenPerShard = new Array<number>(shards).fill(0);
      return taken.map(({ item, shard }) => {
        takenPerShard[shard]! += 1;
        const read = reads[shard]!;
        current[shard] = takenPerShard[shard] === read.items.length && read.exhausted ? '-' : `${item.placedAt}|${item.id}`;
        return encodeCursor(scope, Object.fromEntries(current.map((position, n) => [`s${n}`, position])));
      });
    });
  }

  /** Up to `limit` rows of one status shard, newest first (newer than `above` when set), past 1 MB pages. */
  private async readStatusShard(statusShard: string, query: ShardQuery) {
    const items: OrderRow[] = [];
    let start = query.next;
    do {
      const page = await this.read('Query', (o) =>
        this.doc.send(
          new QueryCommand({
            TableName: TABLES.orders,
            IndexName: INDEX.byStatusShard,
            KeyConditionExpression: query.above === undefined ? 'statusShard = :s' : 'statusShard = :s AND placedAt > :cut',
            ExpressionAttributeValues: query.above === undefined ? { ':s': statusShard } : { ':s': statusShard, ':cut': query.above },
            ScanIndexForward: false,
            Limit: query.limit - items.length,
            ExclusiveStartKey: start,
            ReturnConsumedCapacity: 'TOTAL',
          }),
          o,
        ),
      );
      items.push(...((page.Items ?? []) as OrderRow[]));
      start = page.LastEvaluatedKey;
    } while (start && items.length < query.limit);
    return { items, next: start, complete: start === undefined };
  }
}

/** Cursors made only when a resolver reads them, as the product does (fair comparison). */
function lazyPage(orders: OrderPage['orders'], hasNextPage: boolean, make: () => string[]): OrderPage {
  let cursors: string[] | undefined;
  return {
    orders,
    hasNextPage,
    get cursors() {
      return (cursors ??= make());
    },
  };
}

/** The loaders of one GraphQL operation: keys asked in one tick go out together. */
export interface MultiLoaders {
  customers: DataLoader<string, CustomerRow | null>;
  addresses: DataLoader<string, AddressRow[]>;
  customerOrders: DataLoader<{ customerId: string; args: WindowArgs }, OrderPage, string>;
  orders: DataLoader<string, OrderRow | null>;
  lines: DataLoader<string, LineRow[]>;
}

export function createMultiLoaders(store: MultiTableStore): MultiLoaders {
  return {
    customers: new DataLoader(async (ids) => {
      const found = await store.getByIds<CustomerRow>(TABLES.customers, ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
    addresses: new DataLoader((ids) => Promise.all(ids.map((id) => store.addresses(id)))),
    customerOrders: new DataLoader((keys) => Promise.all(keys.map(({ customerId, args }) => store.customerOrders(customerId, args))), {
      cacheKeyFn: ({ customerId, args }) => JSON.stringify([customerId, args.first ?? 20, args.after ?? null, args.month ?? null]),
    }),
    orders: new DataLoader(async (ids) => {
      const found = await store.getByIds<OrderRow>(TABLES.orders, ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
    lines: new DataLoader((ids) => Promise.all(ids.map((id) => store.lines(id)))),
  };
}

export function badInput(message: string, field: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', field } });
}

function checkFirst(value: number | null | undefined): number {
  const first = value ?? 20;
  if (!Number.isInteger(first) || first < 1 || first > FIRST_MAX) throw badInput(`first must be from 1 to ${FIRST_MAX}`, 'first');
  return first;
}

function encodeCursor(scope: string, key: Record<string, string>): string {
  return Buffer.from(JSON.stringify([scope, key]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, scope: string): Record<string, string> {
  try {
    const [cursorScope, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, Record<string, string>];
    if (cursorScope === scope && key && typeof key === 'object' && Object.values(key).every((v) => typeof v === 'string')) return key;
  } catch {
    /* fall through */
  }
  throw badInput('after is not a cursor of this list', 'after');
}
