/**
 * The local outbox relay: reads the table's stream with `@aws-sdk/client-dynamodb-streams` (the
 * embedded engine's Streams API, or Amazon's), keeps the outbox records, publishes their events at
 * least once (src/relay/deliver.ts) and keeps its checkpoint in the table (checkpoint.ts). In AWS
 * the same core runs in Lambda on the stream's event source mapping (src/entry/lambda-relay.ts).
 *
 * One poll: the table's `LatestStreamArn` (DescribeTable), its shards (DescribeStream, paged by
 * `ExclusiveStartShardId`; listed again every 10 s and whenever a shard closes), then every shard
 * that is ready, in parallel: not finished, and its parent (if the stream still holds it) finished,
 * so a child's records never overtake its parent's (shard lineage). A shard is read from its
 * checkpoint (`AFTER_SEQUENCE_NUMBER`), or from `TRIM_HORIZON` when it has none, one GetRecords
 * page after another until it has nothing new; each page is delivered, then the checkpoint saved.
 *
 * Failures: a record whose publication (or stats update) fails stops its shard where it is: the
 * checkpoint stays before it and the shard is read again from there on the next poll, after a
 * backoff. After `maxAttempts` attempts, or at once for a record that does not decode (poison),
 * the record goes to the dead letters and the shard moves on: never an endless retry.
 * `ExpiredIteratorException` takes a new iterator from the checkpoint; `TrimmedDataAccessException`
 * (the checkpoint is older than the stream's 24 hours) starts again at `TRIM_HORIZON`, logged.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type Shard,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from 'pino';
import type { Table } from '../dynamo/table';
import { backoffMs, sleep } from '../dynamo/backoff';
import { isExpiredIterator, isTrimmedData } from '../dynamo/errors';
import { relayCheckpointEntity } from '../model/entity/relay-checkpoint';
import { CheckpointStore, type ShardCheckpoint } from './checkpoint';
import { deliverRecords, errorText, sequenceOf, type StreamRecordLike } from './deliver';
import type { Publisher } from './publishers';
import { RelayCounters } from './stats';

export interface RelayOptions {
  tableName: string;
  /** DescribeTable (the stream's ARN). */
  doc: DynamoDBDocumentClient;
  streams: Pick<DynamoDBStreamsClient, 'send'>;
  /** The checkpoints, dead letters and customer stats. */
  table: Table;
  publisher: Publisher;
  /** The checkpoint's name (default: the publisher's): relays of different names each read everything. */
  name?: string;
  /** Wait after a poll that found nothing new (default 200 ms: Amazon allows 5 GetRecords a second a shard). */
  pollMillis?: number;
  /** Attempts of one record before the dead letters (default 5). */
  maxAttempts?: number;
  /** Keep Customer.stats (default true). */
  keepStats?: boolean;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

const SHARD_LIST_MAX_AGE_MS = 10_000;
const RECORDS_PER_PAGE = 1000;
const PAGES_PER_POLL = 20;

interface ShardState {
  iterator: string | undefined;
  /** Failed attempts of the record the shard is stopped at (by sequence number). */
  attempts: Map<string, number>;
  /** Not before this time (a backoff after a failure). */
  resumeAt: number;
}

export class Relay {
  readonly counters = new RelayCounters();
  readonly store: CheckpointStore;
  readonly #options: RelayOptions;
  #streamArn: string | undefined;
  #shards: Shard[] = [];
  #shardsListedAt = 0;
  #checkpoints = new Map<string, ShardCheckpoint>();
  readonly #state = new Map<string, ShardState>();
  #loop: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;

  constructor(options: RelayOptions) {
    this.#options = options;
    this.store = new CheckpointStore(options.table, options.name ?? options.publisher.name);
  }

  /** Starts polling in the background until `stop`. */
  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#loop = this.#run();
  }

  /** Stops after the poll in flight (its page delivered and checkpointed). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    this.#loop = undefined;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopping) {
      let found = 0;
      try {
        found = await this.pollOnce();
        failures = 0;
      } catch (error) {
        failures++;
        this.#options.logger?.error({ err: error }, 'relay poll failed');
        this.#streamArn = undefined; // the table or its stream may have changed: look again
      }
      if (found === 0 && !this.#stopping) await this.#idle(failures ? backoffMs(failures + 4) : (this.#options.pollMillis ?? 200));
    }
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /** One pass over the ready shards; resolves with the records read. */
  async pollOnce(): Promise<number> {
    const arn = await this.#stream();
    if (!arn) return 0;
    await this.#listShards(arn);
    const ready = this.#readyShards();
    const counts = await Promise.all(ready.map((shard) => this.#pollShard(arn, shard)));
    return counts.reduce((a, b) => a + b, 0);
  }

  async #stream(): Promise<string | undefined> {
    if (this.#streamArn) return this.#streamArn;
    const { Table: description } = await this.#options.doc.send(new DescribeTableCommand({ TableName: this.#options.tableName }));
    const arn = description?.StreamSpecification?.StreamEnabled ? description.LatestStreamArn : undefined;
    if (arn && arn !== this.#streamArn) {
      this.#checkpoints = await this.store.load(arn);
      this.#state.clear();
      this.#shardsListedAt = 0;
    }
    this.#streamArn = arn;
    return arn;
  }

  async #listShards(arn: string): Promise<void> {
    if (Date.now() - this.#shardsListedAt < SHARD_LIST_MAX_AGE_MS) return;
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.#options.streams.send(
        new DescribeStreamCommand({ StreamArn: arn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    this.#shards = shards;
    this.#shardsListedAt = Date.now();
    const present = new Set(shards.map((shard) => shard.ShardId));
    const gone = [...this.#checkpoints.keys()].filter((id) => !present.has(id));
    if (gone.length > 0) {
      await this.store.forget(gone);
      for (const id of gone) this.#checkpoints.delete(id);
    }
  }

  /** Shards not finished whose parent is finished or gone: a child never overtakes its parent. */
  #readyShards(): Shard[] {
    const listed = new Set(this.#shards.map((shard) => shard.ShardId));
    const now = Date.now();
    return this.#shards.filter((shard) => {
      const id = shard.ShardId!;
      if (this.#checkpoints.get(id)?.closed) return false;
      if ((this.#state.get(id)?.resumeAt ?? 0) > now) return false;
      const parent = shard.ParentShardId;
      return !parent || !listed.has(parent) || this.#checkpoints.get(parent)?.closed === true;
    });
  }

  async #pollShard(arn: string, shard: Shard): Promise<number> {
    const shardId = shard.ShardId!;
    let state = this.#state.get(shardId);
    if (!state) this.#state.set(shardId, (state = { iterator: undefined, attempts: new Map(), resumeAt: 0 }));
    let read = 0;
    for (let page = 0; page < PAGES_PER_POLL && !this.#stopping; page++) {
      state.iterator ??= await this.#iterator(arn, shardId);
      let output;
      try {
        output = await this.#options.streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: RECORDS_PER_PAGE }));
      } catch (error) {
        state.iterator = undefined;
        if (isExpiredIterator(error)) continue;
        if (isTrimmedData(error)) {
          this.#options.logger?.error({ shardId }, 'relay checkpoint older than the stream: records were lost; reading from TRIM_HORIZON');
          this.#checkpoints.delete(shardId);
          continue;
        }
        throw error;
      }
      const records = (output.Records ?? []) as _Record[];
      // The relay's own bookkeeping (its checkpoint writes) is in the stream too: not news, and no
      // reason to write a checkpoint again (which would be one more record, forever).
      const news = records.filter((record) => !isBookkeeping(record)).length;
      read += news;
      const finished = news === 0 || (await this.#deliver(arn, shardId, state, records));
      if (!finished) {
        state.iterator = undefined; // read again after the checkpoint, after a backoff
        return read;
      }
      state.iterator = output.NextShardIterator;
      if (!state.iterator) {
        // Closed and read to its end: its children may start.
        const checkpoint = this.#checkpointOf(arn, shardId);
        checkpoint.closed = true;
        await this.store.save(checkpoint);
        this.#state.delete(shardId);
        this.#shardsListedAt = 0;
        return read;
      }
      if (records.length === 0) break;
    }
    return read;
  }

  async #iterator(arn: string, shardId: string): Promise<string> {
    const after = this.#checkpoints.get(shardId)?.sequenceNumber;
    const { ShardIterator } = await this.#options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: arn,
        ShardId: shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    if (!ShardIterator) throw new Error(`no iterator for shard ${shardId}`);
    return ShardIterator;
  }

  /** Delivers one page; false when it stopped at a failure to be retried later. */
  async #deliver(arn: string, shardId: string, state: ShardState, records: StreamRecordLike[]): Promise<boolean> {
    const options = this.#options;
    let rest = records;
    while (rest.length > 0) {
      const result = await deliverRecords(rest, {
        publisher: options.publisher,
        statsTable: options.keepStats === false ? undefined : options.table,
      });
      this.counters.delivered(result);
      const failure = result.failure;
      let last = result.lastSequenceNumber;
      if (failure) {
        const attempts = (state.attempts.get(failure.sequenceNumber) ?? 0) + 1;
        if (!failure.poison && attempts < (options.maxAttempts ?? 5)) {
          state.attempts.set(failure.sequenceNumber, attempts);
          state.resumeAt = Date.now() + backoffMs(attempts + 3);
          this.counters.retried(failure);
          options.logger?.warn({ shardId, sequenceNumber: failure.sequenceNumber, attempts, error: failure.error }, 'relay will retry');
          if (last) await this.#save(arn, shardId, last);
          return false;
        }
        state.attempts.delete(failure.sequenceNumber);
        await this.store.deadLetter(shardId, rest[failure.index]!, failure.error, attempts);
        this.counters.deadLettered(failure);
        options.logger?.error(
          { shardId, sequenceNumber: failure.sequenceNumber, attempts, error: failure.error },
          'relay dead-lettered a record',
        );
        last = failure.sequenceNumber;
        rest = rest.slice(failure.index + 1);
      } else {
        rest = [];
      }
      if (last) await this.#save(arn, shardId, last);
    }
    return true;
  }

  async #save(arn: string, shardId: string, sequenceNumber: string): Promise<void> {
    const checkpoint = this.#checkpointOf(arn, shardId);
    checkpoint.sequenceNumber = sequenceNumber;
    await this.store.save(checkpoint);
  }

  #checkpointOf(arn: string, shardId: string): ShardCheckpoint {
    let checkpoint = this.#checkpoints.get(shardId);
    if (!checkpoint) this.#checkpoints.set(shardId, (checkpoint = { shardId, streamArn: arn, sequenceNumber: undefined, closed: false }));
    return checkpoint;
  }

  /** Polls until a poll finds nothing new (tests, the benchmark): everything committed so far is delivered. */
  async drain(maxPolls = 1000): Promise<void> {
    for (let i = 0; i < maxPolls; i++) {
      if ((await this.pollOnce()) === 0 && this.#readyShards().length === this.#readyCount()) return;
      await sleep(5);
    }
    throw new Error('the relay did not drain');
  }

  #readyCount(): number {
    return this.#shards.filter((shard) => !this.#checkpoints.get(shard.ShardId!)?.closed).length;
  }

  /** Where each shard stands, for `npm run relay -- --status` and tests. */
  checkpoints(): ShardCheckpoint[] {
    return [...this.#checkpoints.values()].map((checkpoint) => ({ ...checkpoint }));
  }
}

/** A record of the relay's own items (`RELAY#…`: checkpoints, dead letters). */
function isBookkeeping(record: _Record): boolean {
  const pk = record.dynamodb?.Keys?.PK?.S;
  return typeof pk === 'string' && pk.startsWith(BOOKKEEPING_PREFIX);
}

const BOOKKEEPING_PREFIX = relayCheckpointEntity.templates.PK.prefix;

export { sequenceOf, errorText };
