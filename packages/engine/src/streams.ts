/**
 * DynamoDB Streams, the log: which tables have a stream, each stream's shard, and its records.
 *
 * - Records are made from the commit itself: every commit (single-item writes, each BatchWriteItem,
 *   transactions) goes through index-lag.ts's `commitBatch`, which shows this module its LevelDB
 *   operations before writing them. Each item put or delete (`item-<table>~…` keys; GSI, LSI and
 *   engine-internal keys never make records) of a table with an enabled stream becomes one record:
 *   INSERT (no item before), MODIFY, REMOVE, with the key and the images its view type asks for.
 *   The item before is read from the store before the batch is written; a write that leaves the
 *   item exactly as it was (a PutItem of the same item, a DeleteItem of a missing one) makes no
 *   record, as on DynamoDB. The records go into the commit's OWN batch, so a crash keeps a commit
 *   and its records or neither. GSI lag (index-lag.ts) and stale reads do not delay them.
 * - Order: commits are serialised by the engine's exclusive lock; each record takes the next
 *   number of one engine-wide counter (persisted in the same batch, so numbers keep increasing
 *   across restarts). A transaction's records are consecutive, in action order.
 * - One shard per stream: opened when the stream is enabled (its StartingSequenceNumber is a number
 *   taken then), closed when the stream is disabled or its table deleted (EndingSequenceNumber).
 * - Retention: records older than `retentionMs` (24 h) are trimmed: unreadable at once, deleted by
 *   a sweep at most once a minute; a closed stream disappears `retentionMs` after it closed.
 *
 * Keys (beside dynalite's sub-databases, like ttl.ts's `engine-ttl~`): `engine-streams~table~<name>`,
 * `engine-streams~stream~<arn>`, `engine-streams~record~<arn>~<sequence number>`,
 * `engine-streams~sequence`. The API is streams-api.ts; the table side streams-table.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { db, type BatchOperation, type Item, type Store } from './dynalite-internals';
import { observeCommits } from './index-lag';

export type StreamViewType = 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY';
export const STREAM_VIEW_TYPES: StreamViewType[] = ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'];

export interface KeySchemaElement {
  AttributeName: string;
  KeyType: string;
}

/** A table's stream setting: the enabled stream's ARN (if any) and the latest stream's. */
interface TableStreams {
  enabledArn?: string;
  latestArn: string;
  latestLabel: string;
}

export interface StreamMeta {
  arn: string;
  label: string;
  tableName: string;
  viewType: StreamViewType;
  keySchema: KeySchemaElement[];
  createdAt: number;
  shardId: string;
  start: string;
  /** Set once closed (stream disabled, table deleted). */
  end?: string;
  closedAt?: number;
  /** The highest sequence number a sweep deleted. */
  trimmedThrough?: string;
}

export interface StreamRecord {
  eventID: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  eventVersion: '1.1';
  eventSource: 'aws:dynamodb';
  awsRegion: string;
  dynamodb: {
    ApproximateCreationDateTime: number;
    Keys: Item;
    NewImage?: Item;
    OldImage?: Item;
    SequenceNumber: string;
    SizeBytes: number;
    StreamViewType: StreamViewType;
  };
  /** As the Streams API spells it (a Lambda event's copy says `type`/`principalId`). */
  userIdentity?: { Type: 'Service'; PrincipalId: 'dynamodb.amazonaws.com' };
}

/** A stored record: the record and when it was made (ms, for retention). */
export interface StoredRecord {
  record: StreamRecord;
  at: number;
}

export interface StreamLogOptions {
  /** The log's clock (ms): record times, retention, iterator expiry. Tests move it by hours. */
  now: () => number;
}

const PREFIX = 'engine-streams~';
const TABLE_PREFIX = `${PREFIX}table~`;
const STREAM_PREFIX = `${PREFIX}stream~`;
const RECORD_PREFIX = `${PREFIX}record~`;
const SEQUENCE_KEY = `${PREFIX}sequence`;
/** Sequence numbers are 21 digits (DynamoDB's are 21 to 40 decimal digits), so key order is numeric order. */
const FIRST_SEQUENCE = 10n ** 20n;
const SWEEP_EVERY_MS = 60 * 1000;
/** How long records are kept: DynamoDB's 24 hours. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** The slice of abstract-level's iterator API the log uses. */
interface Iterable {
  iterator(options: { gt?: string; gte?: string; lt: string; limit?: number }): AsyncIterable<[string, unknown]>;
}

function recordKeyPrefix(arn: string): string {
  return `${RECORD_PREFIX}${arn}~`;
}

export class StreamLog {
  readonly ready: Promise<void>;
  readonly now: () => number;
  readonly retentionMs: number;
  readonly region: string;
  private readonly account: string;
  private readonly tables = new Map<string, TableStreams>();
  private readonly streams = new Map<string, StreamMeta>();
  private sequence = FIRST_SEQUENCE;
  private lastSweepAt = -Infinity;
  private sweeping: Promise<void> | undefined;
  /** Set by the engine while it runs a write on DynamoDB's own behalf (the TTL sweeper's deletes). */
  serviceWrite = false;

  private constructor(
    private readonly store: Store,
    options: StreamLogOptions,
  ) {
    this.now = options.now;
    this.retentionMs = DAY_MS;
    const tableDb = store.tableDb as unknown as { awsRegion?: string; awsAccountId?: string };
    this.region = tableDb.awsRegion ?? 'us-east-1';
    this.account = tableDb.awsAccountId ?? '000000000000';
    this.ready = this.load();
    this.ready.catch(() => undefined); // reported by the first request that awaits it
  }

  static attach(store: Store, options: StreamLogOptions): StreamLog {
    const log = new StreamLog(store, options);
    observeCommits(store, (operations) => log.recordsOf(operations));
    return log;
  }

  /** The table's StreamSpecification, LatestStreamArn and LatestStreamLabel, as DescribeTable shows them. */
  tableFields(tableName: string): Record<string, unknown> {
    const table = this.tables.get(tableName);
    if (!table) return {};
    const enabled = table.enabledArn === undefined ? undefined : this.streams.get(table.enabledArn);
    return {
      ...(enabled ? { StreamSpecification: { StreamEnabled: true, StreamViewType: enabled.viewType } } : {}),
      LatestStreamArn: table.latestArn,
      LatestStreamLabel: table.latestLabel,
    };
  }

  /** The table's enabled stream, if any. */
  enabledStream(tableName: string): StreamMeta | undefined {
    const arn = this.tables.get(tableName)?.enabledArn;
    return arn === undefined ? undefined : this.streams.get(arn);
  }

  /** Opens a new stream (and its shard) on the table. */
  async enable(tableName: string, viewType: StreamViewType, keySchema: KeySchemaElement[]): Promise<void> {
    await this.ready;
    const previous = this.tables.get(tableName);
    let createdAt = this.now();
    // Labels are milliseconds: a stream enabled again within the same one still gets a new ARN.
    if (previous && createdAt <= Date.parse(`${previous.latestLabel}Z`)) createdAt = Date.parse(`${previous.latestLabel}Z`) + 1;
    const label = new Date(createdAt).toISOString().slice(0, -1);
    const arn = `arn:aws:dynamodb:${this.region}:${this.account}:table/${tableName}/stream/${label}`;
    const stream: StreamMeta = {
      arn,
      label,
      tableName,
      viewType,
      keySchema: keySchema.map(({ AttributeName, KeyType }) => ({ AttributeName, KeyType })),
      createdAt,
      shardId: `shardId-${String(createdAt).padStart(20, '0')}-${randomBytes(4).toString('hex')}`,
      start: this.nextSequence(),
    };
    const table: TableStreams = { enabledArn: arn, latestArn: arn, latestLabel: label };
    await this.store.db.batch([
      { type: 'put', key: STREAM_PREFIX + arn, value: stream },
      { type: 'put', key: TABLE_PREFIX + tableName, value: table },
      { type: 'put', key: SEQUENCE_KEY, value: this.sequence.toString() },
    ]);
    this.streams.set(arn, stream);
    this.tables.set(tableName, table);
  }

  /** Closes the table's enabled stream; with `forget`, also the table's record of its latest stream (DeleteTable). */
  async disable(tableName: string, forget = false): Promise<void> {
    await this.ready;
    const table = this.tables.get(tableName);
    const stream = this.enabledStream(tableName);
    const operations: BatchOperation[] = [];
    const closed = stream && { ...stream, end: this.nextSequence(), closedAt: this.now() };
    if (closed) {
      operations.push({ type: 'put', key: STREAM_PREFIX + closed.arn, value: closed });
      operations.push({ type: 'put', key: SEQUENCE_KEY, value: this.sequence.toString() });
    }
    const remaining = table && !forget ? { latestArn: table.latestArn, latestLabel: table.latestLabel } : undefined;
    if (table)
      operations.push(
        remaining ? { type: 'put', key: TABLE_PREFIX + tableName, value: remaining } : { type: 'del', key: TABLE_PREFIX + tableName },
      );
    if (operations.length) await this.store.db.batch(operations);
    if (closed) this.streams.set(closed.arn, closed);
    if (remaining) this.tables.set(tableName, remaining);
    else this.tables.delete(tableName);
  }

  /** Streams still listed (open, or closed less than the retention period ago), in table then label order. */
  listed(): StreamMeta[] {
    const horizon = this.now() - this.retentionMs;
    return [...this.streams.values()]
      .filter((stream) => stream.closedAt === undefined || stream.closedAt >= horizon)
      .sort((a, b) => (a.tableName === b.tableName ? a.label.localeCompare(b.label) : a.tableName < b.tableName ? -1 : 1));
  }

  stream(arn: string): StreamMeta | undefined {
    return this.listed().find((stream) => stream.arn === arn);
  }

  /** The last sequence number given out. */
  get lastSequence(): string {
    return this.sequence.toString();
  }

  /** Up to `limit` records of `stream` after (or at, with `inclusive`) `from`, stopping once past `maxBytes`; `end`: none left after them. */
  async read(
    stream: StreamMeta,
    from: string,
    inclusive: boolean,
    limit: number,
    maxBytes: number,
  ): Promise<{ records: StoredRecord[]; end: boolean }> {
    const prefix = recordKeyPrefix(stream.arn);
    const range = { ...(inclusive ? { gte: prefix + from } : { gt: prefix + from }), lt: `${prefix}\uffff`, limit };
    const records: StoredRecord[] = [];
    let bytes = 0;
    for await (const [, value] of (this.store.db as unknown as Iterable).iterator(range)) {
      const stored = value as StoredRecord;
      records.push(stored);
      bytes += stored.record.dynamodb.SizeBytes;
      if (bytes >= maxBytes) return { records, end: false };
    }
    return { records, end: records.length < limit };
  }

  /** Deletes records past the retention period, and streams closed longer ago than that; at most once a minute. */
  async sweep(): Promise<void> {
    await this.ready;
    if (this.sweeping) return this.sweeping;
    if (this.now() - this.lastSweepAt < SWEEP_EVERY_MS) return;
    this.lastSweepAt = this.now();
    this.sweeping = this.sweepNow().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepNow(): Promise<void> {
    const horizon = this.now() - this.retentionMs;
    for (const stream of [...this.streams.values()]) {
      const prefix = recordKeyPrefix(stream.arn);
      const gone = stream.closedAt !== undefined && stream.closedAt < horizon;
      const operations: BatchOperation[] = [];
      let through = stream.trimmedThrough;
      for await (const [key, value] of (this.store.db as unknown as Iterable).iterator({ gte: prefix, lt: `${prefix}\uffff` })) {
        if (!gone && (value as StoredRecord).at >= horizon) break;
        operations.push({ type: 'del', key });
        through = key.slice(prefix.length);
      }
      if (gone) {
        operations.push({ type: 'del', key: STREAM_PREFIX + stream.arn });
        this.streams.delete(stream.arn);
      } else if (through !== stream.trimmedThrough) {
        stream.trimmedThrough = through;
        operations.push({ type: 'put', key: STREAM_PREFIX + stream.arn, value: stream });
      }
      if (operations.length) await this.store.db.batch(operations);
    }
  }

  /** The records a commit makes, as LevelDB puts for the commit's own batch (commitBatch's observer). */
  private async recordsOf(operations: BatchOperation[]): Promise<BatchOperation[]> {
    await this.ready;
    if (!this.tables.size) return [];
    const changes: { stream: StreamMeta; before: Item | undefined; after: Item | undefined }[] = [];
    const current = new Map<string, Item | undefined>(); // an item written twice in one batch
    for (const operation of operations) {
      if (!operation.key.startsWith('item-')) continue;
      const stream = this.enabledStream(operation.key.slice('item-'.length, operation.key.indexOf('~')));
      if (!stream) continue;
      const before = current.has(operation.key) ? current.get(operation.key) : await this.readItem(operation.key);
      const after = operation.type === 'put' ? (operation.value as Item) : undefined;
      current.set(operation.key, after);
      if (before === undefined && after === undefined) continue; // deleting a missing item
      if (before !== undefined && after !== undefined && sameItem(before, after)) continue; // nothing changed
      changes.push({ stream, before, after });
    }
    if (!changes.length) return [];
    const at = this.now();
    const records: BatchOperation[] = changes.map(({ stream, before, after }) => {
      const record = this.record(stream, before, after, at);
      const value: StoredRecord = { record, at };
      return { type: 'put', key: recordKeyPrefix(stream.arn) + record.dynamodb.SequenceNumber, value };
    });
    return [...records, { type: 'put', key: SEQUENCE_KEY, value: this.sequence.toString() }];
  }

  private record(stream: StreamMeta, before: Item | undefined, after: Item | undefined, at: number): StreamRecord {
    const item = (after ?? before) as Item;
    const keys: Item = Object.fromEntries(
      stream.keySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName] as Item[string]]),
    );
    const view = stream.viewType;
    const newImage = after && (view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? after : undefined;
    const oldImage = before && (view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES') ? before : undefined;
    // DynamoDB does not document how it counts SizeBytes: here the UTF-8 size of the keys and images, as items are sized.
    const sizeBytes = db.itemSize(keys) + (newImage ? db.itemSize(newImage) : 0) + (oldImage ? db.itemSize(oldImage) : 0);
    return {
      eventID: randomUUID().replace(/-/g, ''),
      eventName: before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(at / 1000),
        Keys: keys,
        ...(newImage ? { NewImage: newImage } : {}),
        ...(oldImage ? { OldImage: oldImage } : {}),
        SequenceNumber: this.nextSequence(),
        SizeBytes: sizeBytes,
        StreamViewType: view,
      },
      ...(this.serviceWrite ? { userIdentity: { Type: 'Service' as const, PrincipalId: 'dynamodb.amazonaws.com' as const } } : {}),
    };
  }

  private nextSequence(): string {
    this.sequence += 1n;
    return this.sequence.toString();
  }

  private async readItem(key: string): Promise<Item | undefined> {
    try {
      return ((await this.store.db.get(key)) as Item | undefined) ?? undefined;
    } catch (err) {
      if (err instanceof Error && (err.name === 'NotFoundError' || (err as { code?: string }).code === 'LEVEL_NOT_FOUND')) return undefined;
      throw err;
    }
  }

  private async load(): Promise<void> {
    const level = this.store.db as unknown as Iterable;
    for await (const [key, value] of level.iterator({ gte: TABLE_PREFIX, lt: `${TABLE_PREFIX}\uffff` })) {
      this.tables.set(key.slice(TABLE_PREFIX.length), value as TableStreams);
    }
    for await (const [key, value] of level.iterator({ gte: STREAM_PREFIX, lt: `${STREAM_PREFIX}\uffff` })) {
      this.streams.set(key.slice(STREAM_PREFIX.length), value as StreamMeta);
    }
    const sequence = (await this.store.db.get(SEQUENCE_KEY).catch(() => undefined)) as string | undefined;
    if (sequence) this.sequence = BigInt(sequence);
  }
}

/** Whether two items are the same: same attributes and values (sets in any order). */
function sameItem(a: Item, b: Item): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return `{${entries
    .map(([key, inner]) => {
      const sets = key === 'SS' || key === 'NS' || key === 'BS';
      return `${JSON.stringify(key)}:${sets && Array.isArray(inner) ? canonical([...(inner as string[])].sort()) : canonical(inner)}`;
    })
    .join(',')}}`;
}
