import {
  BatchGetCommand,
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
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { Meter, type RequestDetail, type RequestOutcome } from './meter';
import { backoffMs, sleep } from './backoff';

export type Item = Record<string, unknown>;
export type Key = { PK: string; SK: string };
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
 * The one table, as the model sees it: every DynamoDB request the product makes goes through
 * here, so each is metered (see `Meter`) and asks for its consumed capacity.
 *
 * A `Table` is cheap: `withMeter` derives a per-request handle over the same SDK client.
 */
export class Table {
  constructor(
    readonly name: string,
    private readonly client: DynamoDBDocumentClient,
    readonly meter: Meter = new Meter(),
  ) {}

  withMeter(meter: Meter): Table {
    return new Table(this.name, this.client, meter);
  }

  async get(input: Omit1<GetCommandInput>): Promise<Item | undefined> {
    const out = await this.metered('GetItem', { keyCondition: describeKey(input.Key) }, () =>
      this.client.send(new GetCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: o.Item ? 1 : 0, capacity: capacityOf(o.ConsumedCapacity) }),
    );
    return out.Item;
  }

  /** One Query request (one page); the caller decides whether to follow `LastEvaluatedKey`. */
  query(input: Omit1<QueryCommandInput>): Promise<QueryCommandOutput> {
    return this.metered('Query', { index: input.IndexName, keyCondition: describeCondition(input) }, () =>
      this.client.send(new QueryCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: o.Count ?? 0, scanned: o.ScannedCount ?? o.Count ?? 0, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  scan(input: Omit1<ScanCommandInput>): Promise<ScanCommandOutput> {
    return this.metered('Scan', { index: input.IndexName }, () =>
      this.client.send(new ScanCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: o.Count ?? 0, scanned: o.ScannedCount ?? 0, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  /**
   * Reads the items at `keys`, 100 keys a request, the calls of one round sent together, and
   * retries `UnprocessedKeys` with exponential backoff until every key is answered. Returns the
   * items found, in no particular order (missing keys are simply absent). Never returns a partial
   * answer: it rejects after `maxRounds` rounds that still leave keys unprocessed. `consistent`
   * asks for strongly consistent reads (twice the read capacity).
   */
  async batchGet(keys: readonly Key[], options: { projection?: string; names?: Record<string, string>; maxRounds?: number; consistent?: boolean } = {}): Promise<Item[]> {
    const found: Item[] = [];
    let pending: Key[] = dedupeKeys(keys);
    const maxRounds = options.maxRounds ?? 10;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= maxRounds) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${maxRounds} rounds`);
      if (round > 0) await sleep(backoffMs(round));
      const chunks = chunk(pending, BATCH_GET_LIMIT);
      const answers = await Promise.all(chunks.map((keysOfCall) => this.metered('BatchGetItem', { keyCondition: `${keysOfCall.length} keys` }, () =>
        this.client.send(new BatchGetCommand({
          RequestItems: {
            [this.name]: {
              Keys: keysOfCall,
              ...(options.projection ? { ProjectionExpression: options.projection } : {}),
              ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
              ...(options.consistent ? { ConsistentRead: true } : {}),
            },
          },
          ReturnConsumedCapacity: 'TOTAL',
        })),
        (o) => ({ items: o.Responses?.[this.name]?.length ?? 0, capacity: capacityOf(o.ConsumedCapacity) }),
      )));
      pending = [];
      for (const answer of answers) {
        found.push(...(answer.Responses?.[this.name] ?? []));
        pending.push(...((answer.UnprocessedKeys?.[this.name]?.Keys ?? []) as Key[]));
      }
    }
    return found;
  }

  put(input: Omit1<PutCommandInput>): Promise<unknown> {
    return this.metered('PutItem', { keyCondition: describeKey(input.Item as Key) }, () =>
      this.client.send(new PutCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  update(input: Omit1<UpdateCommandInput>): Promise<UpdateCommandOutput> {
    return this.metered('UpdateItem', { keyCondition: describeKey(input.Key) }, () =>
      this.client.send(new UpdateCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  delete(input: Omit1<DeleteCommandInput>): Promise<unknown> {
    return this.metered('DeleteItem', { keyCondition: describeKey(input.Key) }, () =>
      this.client.send(new DeleteCommand({ ...input, TableName: this.name, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: 1, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  /** One TransactWriteItems request: all actions commit or none does. */
  async transactWrite(actions: readonly TransactAction[]): Promise<void> {
    if (actions.length > TRANSACTION_LIMIT) throw new Error(`a transaction holds at most ${TRANSACTION_LIMIT} actions, got ${actions.length}`);
    const TransactItems = actions.map((action) => withTableName(action, this.name));
    await this.metered('TransactWriteItems', { keyCondition: `${actions.length} actions` }, () =>
      this.client.send(new TransactWriteCommand({ TransactItems, ReturnConsumedCapacity: 'TOTAL' })),
      (o) => ({ items: actions.length, capacity: capacityOf(o.ConsumedCapacity) }),
    );
  }

  private async metered<T>(operation: string, detail: RequestDetail, send: () => Promise<T>, measure: (out: T) => RequestOutcome): Promise<T> {
    const end = this.meter.begin(operation, detail);
    try {
      const out = await send();
      end(measure(out));
      return out;
    } catch (error) {
      end({ error: (error as Error).name });
      throw error;
    }
  }
}

function withTableName(action: TransactAction, tableName: string): TransactItem {
  if ('Put' in action) return { Put: { ...action.Put, TableName: tableName } };
  if ('Update' in action) return { Update: { ...action.Update, TableName: tableName } };
  if ('Delete' in action) return { Delete: { ...action.Delete, TableName: tableName } };
  return { ConditionCheck: { ...action.ConditionCheck, TableName: tableName } };
}

function capacityOf(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  if (!consumed) return 0;
  const list = Array.isArray(consumed) ? consumed : [consumed];
  return list.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
}

function describeKey(key: Record<string, unknown> | undefined): string | undefined {
  if (!key) return undefined;
  return `PK = ${String(key.PK)} AND SK = ${String(key.SK)}`;
}

/** The key condition with its placeholders filled in, for humans reading the explain output. */
function describeCondition(input: Omit1<QueryCommandInput>): string | undefined {
  let text = input.KeyConditionExpression;
  if (!text) return undefined;
  for (const [name, real] of Object.entries(input.ExpressionAttributeNames ?? {})) text = text.split(name).join(real);
  for (const [name, value] of Object.entries(input.ExpressionAttributeValues ?? {})) text = text.split(name).join(JSON.stringify(value));
  const direction = input.ScanIndexForward === false ? 'descending' : 'ascending';
  const limit = input.Limit !== undefined ? `, Limit ${input.Limit}` : '';
  const start = input.ExclusiveStartKey ? ', from a cursor' : '';
  return `${text} (${direction}${limit}${start})`;
}

function dedupeKeys(keys: readonly Key[]): Key[] {
  const seen = new Map<string, Key>();
  for (const key of keys) seen.set(`${key.PK}\u0000${key.SK}`, { PK: key.PK, SK: key.SK });
  return [...seen.values()];
}

function chunk<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
