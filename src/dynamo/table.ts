import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  type GetCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type QueryCommandOutput,
  type ScanCommandInput,
  type ScanCommandOutput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { Item, Key } from './types';
import { Meter, type RequestDetail, type RequestOutcome } from './meter';
import { inRounds } from './backoff';
import { capacityOf, chunk, dedupeKeys, describeCondition, describeKey, partitionOf, touchedKey, touchedKeys } from './describe';
import { puts, writeInBatches, type BatchWrite, type BatchWriteOptions, type BatchWriteTotals, type WireWriteRequest } from './batch-write';
import { scanInParallel, type ParallelScanOptions, type ScanTotals } from './parallel-scan';
import { queryAll, type QueryAllOptions, type QueryAllResult } from './paging';
import type { Hedger } from './hedge';

export { BATCH_WRITE_LIMIT, type BatchWrite, type BatchWriteOptions, type BatchWriteTotals } from './batch-write';
export type { ParallelScanOptions, ScanPage, ScanTotals } from './parallel-scan';
export type { QueryAllOptions, QueryAllResult } from './paging';

export type { Item, Key } from './types';
type Omit1<T> = Omit<T, 'TableName' | 'ReturnConsumedCapacity'>;
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/** A transaction action without its table name: the model writes to one table. */
export type TransactAction =
  | { Put: Omit1<NonNullable<TransactItem['Put']>> }
  | { Update: Omit1<NonNullable<TransactItem['Update']>> }
  | { Delete: Omit1<NonNullable<TransactItem['Delete']>> }
  | { ConditionCheck: Omit1<NonNullable<TransactItem['ConditionCheck']>> };

/** BatchGetItem accepts at most this many keys a call. */
export const BATCH_GET_LIMIT = 100;
/** TransactWriteItems accepts at most this many actions. */
export const TRANSACTION_LIMIT = 100;

/**
 * Checks applied to every write a guarded table sends, before anything is sent (the model's write
 * guards, src/model/guards.ts, injected: the model imports the seam, never the reverse). `item`
 * sees every item put (PutItem, a transaction's Put, a BatchWriteItem's put); `update` every
 * UpdateItem and a transaction's Update. Either throws to refuse.
 */
export interface WriteGuard {
  item(item: Item): void;
  update(update: {
    Key?: Record<string, unknown> | undefined;
    UpdateExpression?: string | undefined;
    ExpressionAttributeValues?: Record<string, unknown> | undefined;
  }): void;
}

/** How many keys a write-sharded index key spreads over when the table names no count (the status index's shards). */
export const DEFAULT_WRITE_SHARDS = 4;

/** Checks a write-shard count: an integer 1..64. */
export function checkWriteShards(shards: number, name = 'writeShards'): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > 64) throw new Error(`${name} must be an integer 1..64, got ${shards}`);
  return shards;
}

export interface TableOptions {
  /**
   * How many keys each write-sharded index key is spread over on this table (the status index:
   * `STATUS#<status>#<n>`, n < writeShards); every writer and reader of the table must agree.
   * Default `DEFAULT_WRITE_SHARDS`; an integer 1..64.
   */
  writeShards?: number | undefined;
  /** The meter of the operation these requests belong to; default: totals only, no records. */
  meter?: Meter;
  /** Checks every write before it is sent; default none. */
  guard?: WriteGuard | undefined;
  /** Hedges GetItem, Query and BatchGetItem (src/dynamo/hedge.ts), never a write; default none (no hedging). */
  hedger?: Hedger | undefined;
}

/** What a send callback passes to the SDK: the abort signal of its copy when the read is hedged. */
type SendOptions = { abortSignal: AbortSignal } | undefined;

/**
 * The one table, as the model sees it: every DynamoDB request the product makes goes through
 * here, so each is metered (see `Meter`), asks for its consumed capacity and, on a guarded table,
 * passes the write guard. Reads are hedged when the table has a `Hedger` (bootstrap: `HEDGE`).
 *
 * A `Table` is cheap: `withMeter` derives a per-operation handle over the same SDK client, and
 * `withGuard` a guarded one. Without an operation meter a table keeps totals only.
 */
export class Table {
  readonly meter: Meter;
  readonly guard: WriteGuard | undefined;
  readonly hedger: Hedger | undefined;
  /** The write-shard count of the table's data (`TableOptions.writeShards`). */
  readonly writeShards: number;

  constructor(
    readonly name: string,
    private readonly client: DynamoDBDocumentClient,
    options: TableOptions = {},
  ) {
    this.meter = options.meter ?? Meter.counters();
    this.guard = options.guard;
    this.hedger = options.hedger;
    this.writeShards = options.writeShards === undefined ? DEFAULT_WRITE_SHARDS : checkWriteShards(options.writeShards);
  }

  withMeter(meter: Meter): Table {
    return new Table(this.name, this.client, { meter, guard: this.guard, hedger: this.hedger, writeShards: this.writeShards });
  }

  /** The same table with `guard` on every write (undefined: none, for deliberately bad fixtures). */
  withGuard(guard: WriteGuard | undefined): Table {
    return new Table(this.name, this.client, { meter: this.meter, guard, hedger: this.hedger, writeShards: this.writeShards });
  }

  async get(input: Omit1<GetCommandInput>): Promise<Item | undefined> {
    const out = await this.metered(
      'GetItem',
      () => ({ keyCondition: describeKey(input.Key), partition: keyPartition(input.Key) }),
      (send) => this.client.send(new GetCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' }), send),
      (o) => ({ items: o.Item ? 1 : 0, capacity: capacityOf(o.ConsumedCapacity), keys: this.keysOf(o.Item ? [o.Item] : []) }),
      true,
    );
    return out.Item;
  }

  /** One Query request (one page); the caller decides whether to follow `LastEvaluatedKey`. */
  query(input: Omit1<QueryCommandInput>): Promise<QueryCommandOutput> {
    return this.metered(
      'Query',
      () => ({ index: input.IndexName, keyCondition: describeCondition(input), partition: partitionOf(input) }),
      (send) => this.client.send(new QueryCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' }), send),
      (o) => ({
        items: o.Count ?? 0,
        scanned: o.ScannedCount ?? o.Count ?? 0,
        capacity: capacityOf(o.ConsumedCapacity),
        keys: this.keysOf(o.Items),
      }),
      true,
    );
  }

  /** A Query followed along `LastEvaluatedKey`, at most `limit` items in all (paging.ts). */
  queryAll(input: Omit1<QueryCommandInput>, options: QueryAllOptions = {}): Promise<QueryAllResult> {
    return queryAll(this, input, options);
  }

  scan(input: Omit1<ScanCommandInput>): Promise<ScanCommandOutput> {
    return this.metered(
      'Scan',
      { index: input.IndexName },
      () => this.client.send(new ScanCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: o.Count ?? 0, scanned: o.ScannedCount ?? 0, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  /** The whole table, `segments` Scans in parallel, page by page (parallel-scan.ts). */
  parallelScan(options: ParallelScanOptions): Promise<ScanTotals> {
    return scanInParallel((input) => this.scan(input), options);
  }

  /**
   * Reads the items at `keys`, 100 keys a request, the calls of one round sent together, and
   * retries `UnprocessedKeys` with exponential backoff until every key is answered. Returns the
   * items found, in no particular order (missing keys are simply absent). Never returns a partial
   * answer: it rejects after `maxRounds` rounds that still leave keys unprocessed. `consistent`
   * asks for strongly consistent reads (twice the read capacity). Each call is hedged on its own, so
   * a copy asks only the keys still missing: those of its call (a round's retry holds only the
   * keys left unprocessed), never keys another call has answered.
   */
  async batchGet(
    keys: readonly Key[],
    options: { projection?: string; names?: Record<string, string>; maxRounds?: number; consistent?: boolean } = {},
  ): Promise<Item[]> {
    const found: Item[] = [];
    const maxRounds = options.maxRounds ?? 10;
    const left = await inRounds(dedupeKeys(keys), maxRounds, async (pending) => {
      const chunks = chunk([...pending], BATCH_GET_LIMIT);
      const answers = await Promise.all(
        chunks.map((keysOfCall) =>
          this.metered(
            'BatchGetItem',
            { keyCondition: `${keysOfCall.length} keys` },
            (send) =>
              this.client.send(
                new BatchGetCommand({
                  RequestItems: {
                    [this.name]: {
                      Keys: keysOfCall,
                      ...(options.projection ? { ProjectionExpression: options.projection } : {}),
                      ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
                      ...(options.consistent ? { ConsistentRead: true } : {}),
                    },
                  },
                  ReturnConsumedCapacity: 'TOTAL',
                }),
                send,
              ),
            (o) => ({
              items: o.Responses?.[this.name]?.length ?? 0,
              capacity: capacityOf(o.ConsumedCapacity),
              keys: this.keysOf(o.Responses?.[this.name]),
            }),
            true,
          ),
        ),
      );
      const unprocessed: Key[] = [];
      for (const answer of answers) {
        found.push(...(answer.Responses?.[this.name] ?? []));
        unprocessed.push(...((answer.UnprocessedKeys?.[this.name]?.Keys ?? []) as Key[]));
      }
      return unprocessed;
    });
    if (left.length > 0) throw new Error(`BatchGetItem left ${left.length} keys unprocessed after ${maxRounds} rounds`);
    return found;
  }

  put(input: Omit1<PutCommandInput>): Promise<unknown> {
    this.guard?.item(input.Item as Item);
    return this.metered(
      'PutItem',
      () => ({ keyCondition: describeKey(input.Item as Key), ...this.writeDetail(input.Item, 'Put') }),
      () => this.client.send(new PutCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  update(input: Omit1<UpdateCommandInput>): Promise<UpdateCommandOutput> {
    this.guard?.update(input);
    return this.metered(
      'UpdateItem',
      () => ({ keyCondition: describeKey(input.Key), ...this.writeDetail(input.Key, 'Update') }),
      () => this.client.send(new UpdateCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  delete(input: Omit1<DeleteCommandInput>): Promise<unknown> {
    return this.metered(
      'DeleteItem',
      () => ({ keyCondition: describeKey(input.Key), ...this.writeDetail(input.Key, 'Delete') }),
      () => this.client.send(new DeleteCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  /** One TransactWriteItems request: all actions commit or none does. */
  async transactWrite(actions: readonly TransactAction[]): Promise<void> {
    if (actions.length > TRANSACTION_LIMIT)
      throw new Error(`a transaction holds at most ${TRANSACTION_LIMIT} actions, got ${actions.length}`);
    if (this.guard) {
      for (const action of actions) {
        if ('Put' in action) this.guard.item(action.Put.Item as Item);
        else if ('Update' in action) this.guard.update(action.Update);
      }
    }
    const TransactItems = actions.map((action) => withTableName(action, this.name));
    await this.metered(
      'TransactWriteItems',
      () => ({ keyCondition: `${actions.length} actions`, keys: actions.map(actionKey) }),
      () => this.client.send(new TransactWriteCommand({ TransactItems, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: actions.length, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  /**
   * BatchWriteItem of `writes` (puts and deletes), 25 a call, `concurrency` calls in flight,
   * `UnprocessedItems` re-sent with backoff (batch-write.ts). Every put passes the guard, as it is
   * pulled from `writes`. For data a tool or a test built itself; the product's writes transact.
   */
  batchWrite(writes: Iterable<BatchWrite>, options: BatchWriteOptions = {}): Promise<BatchWriteTotals> {
    const guard = this.guard;
    return writeInBatches(
      writes,
      (requests) =>
        this.metered(
          'BatchWriteItem',
          { keyCondition: `${requests.length} items` },
          () => this.client.send(new BatchWriteCommand({ RequestItems: { [this.name]: requests }, ReturnConsumedCapacity: 'TOTAL' })),
          (o) => ({ items: requests.length - (o.UnprocessedItems?.[this.name]?.length ?? 0), capacity: capacityOf(o.ConsumedCapacity) }),
        ).then((o) => ({
          unprocessed: (o.UnprocessedItems?.[this.name] ?? []) as WireWriteRequest[],
          capacity: capacityOf(o.ConsumedCapacity),
        })),
      {
        ...options,
        ...(guard
          ? {
              check: (write: BatchWrite) => {
                if ('put' in write) guard.item(write.put);
              },
            }
          : {}),
      },
    );
  }

  /** `batchWrite` of puts only. */
  putAll(items: Iterable<Item>, options: BatchWriteOptions = {}): Promise<BatchWriteTotals> {
    return this.batchWrite(puts(items), options);
  }

  /** The keys of the items a read returned, when the meter keeps records (nothing is collected otherwise). */
  private keysOf(items: readonly Record<string, unknown>[] | undefined) {
    return this.meter.detailed ? touchedKeys(items) : undefined;
  }

  /** A single-item write's partition and key (read only when the meter keeps records). */
  private writeDetail(key: Record<string, unknown> | undefined, action: 'Put' | 'Update' | 'Delete'): RequestDetail {
    return { partition: keyPartition(key), ...(key ? { keys: [touchedKey(key, action)] } : {}) };
  }

  /** Sends one request and meters it; a read (`hedgeable`) goes through the hedger when the table has one. */
  private async metered<T>(
    operation: string,
    detail: RequestDetail | (() => RequestDetail),
    send: (options: SendOptions) => Promise<T>,
    measure: (out: T) => RequestOutcome,
    hedgeable = false,
  ): Promise<T> {
    const end = this.meter.begin(operation, detail);
    try {
      if (hedgeable && this.hedger) {
        const { value, hedge } = await this.hedger.run(operation, (abortSignal) => send({ abortSignal }));
        end(hedge ? { ...measure(value), hedge } : measure(value));
        return value;
      }
      const out = await send(undefined);
      end(measure(out));
      return out;
    } catch (error) {
      end({ error: (error as Error).name });
      throw error;
    }
  }
}

function keyPartition(key: Record<string, unknown> | undefined): string | undefined {
  return typeof key?.PK === 'string' ? key.PK : undefined;
}

/** The key a transaction action names (a Put's item carries its GSI1 keys and type too). */
function actionKey(action: TransactAction) {
  if ('Put' in action) return touchedKey(action.Put.Item as Item, 'Put');
  if ('Update' in action) return touchedKey(action.Update.Key as Item, 'Update');
  if ('Delete' in action) return touchedKey(action.Delete.Key as Item, 'Delete');
  return touchedKey(action.ConditionCheck.Key as Item, 'ConditionCheck');
}

function withTableName(action: TransactAction, tableName: string): TransactItem {
  if ('Put' in action) return { Put: { ...action.Put, TableName: tableName } };
  if ('Update' in action) return { Update: { ...action.Update, TableName: tableName } };
  if ('Delete' in action) return { Delete: { ...action.Delete, TableName: tableName } };
  return { ConditionCheck: { ...action.ConditionCheck, TableName: tableName } };
}
