/**
 * The engine: dynalite's store and operations, run in-process, extended with the DynamoDB
 * operations dynalite lacks, behind one readers-writer lock.
 *
 * How it hooks into dynalite (4.0.0), and nowhere else:
 * - Store: `dynalite/db`'s `create()` builds dynalite's LevelDB store (on disk with `path`,
 *   in memory without). dynalite's own HTTP server (`dynalite()`) is not used, because it keeps
 *   its store private; the engine needs that store for transactions.
 * - Routing: `handle(operation, body)` looks the operation up in one table. dynalite's 17
 *   operations run exactly as dynalite's HTTP handler runs them: `validations.checkTypes`, then
 *   `validations.checkValidations` with `validations/<op>.js`, then `actions/<op>.js`. The
 *   extensions (TransactWriteItems, TransactGetItems, UpdateTimeToLive, and DescribeTimeToLive,
 *   which replaces dynalite's always-DISABLED one) are handlers in transactions.ts and ttl.ts,
 *   each an `OperationHandler` (operation.ts: the handlers never import this file).
 * - Reuse: transactions run dynalite's own PutItem/UpdateItem/DeleteItem/GetItem actions (so
 *   condition, update-expression, size and GSI logic are dynalite's), see transactions.ts.
 * - Corrections: dynalite's Query/Scan streams never closed their LevelDB iterators (a leak per
 *   Query): iterator-closing.ts closes them. Expressions over 4 KB or nested too deep are refused
 *   before dynalite parses them (expression-limits.ts); condition semantics, empty index keys and
 *   remove-only updates are DynamoDB's (condition-semantics.ts, installed by dynalite-internals.ts).
 *
 * Isolation: every operation runs under a FIFO readers-writer lock. Reads (GetItem, Query, Scan,
 * BatchGetItem, TransactGetItems, Describe*, List*) share it; every write (single-item writes,
 * BatchWriteItem, TransactWriteItems, table and TTL changes) holds it exclusively. So a reader
 * sees either none or all of a write, and writes are serialised: a transaction's conditions are
 * checked and its writes applied with nobody else in between. One process, one lock: correct for
 * any number of client processes talking to this engine over HTTP.
 *
 * Opt-in fidelity: with `gsiLagMs`, GSI writes are applied after a seeded random delay, as
 * DynamoDB propagates them asynchronously (index-lag.ts); `indexesSettled()` waits for them. With
 * `conflicts`, requests in flight at once on one item conflict by DynamoDB's rules (conflicts.ts).
 * With `consistency: 'eventual'`, GetItem/BatchGetItem without ConsistentRead may read an item's
 * previous version for a short window after a write (stale-reads.ts).
 *
 * Atomicity on disk: a transaction's item and index writes go to LevelDB as one `batch` (see
 * transactions.ts), and so do a single-item write's (PutItem/UpdateItem/DeleteItem, and each
 * BatchWriteItem): dynalite's action runs against a store that records its index and item writes,
 * committed as one batch (durable-writes.ts), so a crash never leaves an index entry without its
 * item. With `sync`, every LevelDB write is fsynced before it is acknowledged. `open` refuses a
 * dynalite other than the version package.json pins (dynalite-version.ts).
 *
 * DynamoDB Streams: every commit's item changes become stream records in the commit's own batch
 * (streams.ts, a `commitBatch` observer); StreamSpecification on the table operations is
 * streams-table.ts's; the Streams API (`handle(op, body, { service: 'streams' })`) streams-api.ts's.
 */
import {
  DYNALITE_OPERATIONS,
  db,
  getTable,
  loadAction,
  loadValidation,
  readItem,
  runAction,
  validations,
  type DynaliteOperation,
  type Item,
  type OperationValidation,
  type Store,
  type StoreOptions,
} from './dynalite-internals';
import { ITEM_WRITE_OPERATIONS, atomicWritesStore, syncEveryWrite } from './durable-writes';
import { assertDynaliteVersion } from './dynalite-version';
import { CORAL_SERVICE, apiError, isApiError, readableShape, toErrorResponse, type EngineResponse } from './errors';
import { rejectOversizedExpressions } from './expression-limits';
import { ConflictDetector, type ConflictCounts } from './conflicts';
import { IndexLag } from './index-lag';
import { addIndexUpdatesToHandlers, resumeIndexUpdates } from './index-updates';
import { withoutLeadingPlus } from './number-limits';
import { StaleReads, type ReadView } from './stale-reads';
import { closeIteratorsWithTheirStreams, iteratorCounts, type IteratorCounts } from './iterator-closing';
import type { OperationHandler } from './operation';
import { ReadWriteLock } from './rw-lock';
import { StreamLog } from './streams';
import { createStreamsHandlers } from './streams-api';
import { addStreamsToTableHandlers } from './streams-table';
import { deletedTableAnswer, namingExistingTable } from './table-answers';
import { createTransactionHandlers } from './transactions';
import { createTimeToLiveHandlers, forgetTimeToLive } from './ttl';

export type { OperationHandler } from './operation';

export interface OpenOptions {
  /** LevelDB directory; in memory when absent. */
  path?: string;
  /** How long a table stays CREATING / UPDATING / DELETING (dynalite's options), in ms. */
  tableStatusDelayMs?: number;
  /** fsync every write before acknowledging it (LevelDB's `sync: true`); only meaningful with `path`. */
  sync?: boolean;
  /** GSI propagation lag (index-lag.ts): each GSI write is applied after a random 0..N ms. Default 0: at once. */
  gsiLagMs?: number;
  /** Seed of the GSI lag's delays; default 1. */
  gsiLagSeed?: number;
  /** DynamoDB's transaction conflicts between requests in flight at once (conflicts.ts). Default off. */
  conflicts?: boolean;
  /** With `conflicts`: probability that a TransactWriteItems is cancelled with a forced TransactionConflict. */
  conflictChance?: number;
  /** Seed of that draw; default 1. */
  conflictSeed?: number;
  /** 'eventual': GetItem/BatchGetItem/Query/Scan without ConsistentRead may read an item's previous version (stale-reads.ts). Default 'strong'. */
  consistency?: 'strong' | 'eventual';
  /** With 'eventual': each write's stale window is a random 0..N ms; default 100. */
  staleReadMs?: number;
  /** With 'eventual': probability that an eventually consistent read inside a window is stale (0..1, seeded); default 1: always. */
  staleReadChance?: number;
  /** Read-committed transactions: each item of a TransactWriteItems turns visible to BatchGetItem/Query/Scan within 0..N ms, and the transaction answers after the last. Default 0: all at once. */
  commitSpanMs?: number;
  /** Seed of the stale windows and commit spans; default 1. */
  staleReadSeed?: number;
  /**
   * The DynamoDB Streams clock (ms since the epoch; default `Date.now`): record times, the 24-hour
   * retention and the 15-minute iterator lifetime. For tests, which move it by hours instead of waiting.
   */
  streamsClock?: () => number;
}

/** How `Engine.handle` is asked: which API, and on whose behalf. */
export interface RequestContext {
  /** 'streams': a DynamoDB Streams request (target `DynamoDBStreams_20120810.`); default DynamoDB's. */
  service?: 'dynamodb' | 'streams';
  /** The write is DynamoDB's own (the TTL sweeper's deletes): its stream records carry a service userIdentity. */
  asService?: boolean;
}

/** Tables turn ACTIVE (or vanish) on the next timer tick: fast tests, and still the CREATING step clients must wait out. */
const DEFAULT_TABLE_STATUS_DELAY_MS = 0;

/** Operations that only read; everything else takes the lock exclusively. */
const READ_OPERATIONS = new Set([
  'GetItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'TransactGetItems',
  'DescribeTable',
  'ListTables',
  'DescribeTimeToLive',
  'ListTagsOfResource',
  'ListStreams',
  'DescribeStream',
  'GetShardIterator',
  'GetRecords',
]);

/** dynalite operations after which a dynalite timer still changes the table's status. */
const TABLE_STATUS_OPERATIONS = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);

/** Single-item writes that accept Amazon's ReturnValuesOnConditionCheckFailure (dynalite ignores it). */
const SINGLE_ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

export class Engine {
  private readonly lock = new ReadWriteLock();
  private readonly handlers = new Map<string, OperationHandler>();
  private lastTableStatusChangeAt = 0;
  private closing: Promise<void> | undefined;
  private readonly indexLag: IndexLag | undefined;
  private readonly conflicts: ConflictDetector | undefined;
  private readonly staleReads: StaleReads | undefined;
  private readonly streams: StreamLog;
  private readonly streamsHandlers: Map<string, OperationHandler>;
  /** Settles once the index updates an earlier run left unfinished are resumed (their status changes scheduled). */
  private readonly resumed: Promise<void>;

  private constructor(
    private readonly store: Store,
    private readonly tableStatusDelayMs: number,
    options: OpenOptions,
  ) {
    if (options.gsiLagMs) {
      this.indexLag = IndexLag.attach(store, {
        maxMs: options.gsiLagMs,
        seed: options.gsiLagSeed ?? 1,
        exclusively: (work) => this.lock.with(true, work),
      });
    }
    const staleMs = options.consistency === 'eventual' ? (options.staleReadMs ?? 100) : 0;
    if (staleMs || options.commitSpanMs) {
      this.staleReads = StaleReads.attach(store, {
        staleMs,
        staleChance: options.staleReadChance ?? 1,
        commitSpanMs: options.commitSpanMs ?? 0,
        seed: options.staleReadSeed ?? 1,
      });
    }
    if (options.conflicts || options.conflictChance) {
      this.conflicts = new ConflictDetector(store, { chance: options.conflictChance ?? 0, seed: options.conflictSeed ?? 1 });
    }
    for (const operation of DYNALITE_OPERATIONS) this.handlers.set(operation, this.dynaliteHandler(operation));
    for (const [operation, handler] of Object.entries({
      ...createTransactionHandlers(store),
      ...createTimeToLiveHandlers(store),
    })) {
      this.handlers.set(operation, handler);
    }
    // Index Create/Delete on dynalite's UpdateTable, before streams wraps it (index-updates.ts).
    const indexUpdates = {
      statusDelayMs: tableStatusDelayMs,
      exclusively: (work: () => Promise<void>) => this.lock.with(true, work),
      forgetIndex: (tableName: string, indexName: string) => this.indexLag?.forgetIndex(tableName, indexName),
      statusChanging: () => (this.lastTableStatusChangeAt = Date.now()),
    };
    addIndexUpdatesToHandlers(this.handlers, store, indexUpdates);
    // An index left CREATING or DELETING on disk by an engine that stopped mid-update is finished first.
    this.resumed = resumeIndexUpdates(store, indexUpdates).catch((err: unknown) => {
      // A store that did not open (a path another process holds) is reported by whoever opens it.
      if ((store.db as { status?: string }).status === 'open') console.error('[engine] resuming index updates failed:', err);
    });
    // After stale-reads (observers run in the order attached); records are made from every commit.
    this.streams = StreamLog.attach(store, { now: options.streamsClock ?? Date.now });
    addStreamsToTableHandlers(this.handlers, store, this.streams);
    this.streamsHandlers = new Map(Object.entries(createStreamsHandlers(store, this.streams)));
  }

  static open(options: OpenOptions = {}): Engine {
    const delay = options.tableStatusDelayMs ?? DEFAULT_TABLE_STATUS_DELAY_MS;
    const storeOptions: StoreOptions = { createTableMs: delay, updateTableMs: delay, deleteTableMs: delay };
    if (options.path !== undefined) storeOptions.path = options.path;
    assertDynaliteVersion();
    const store = db.create(storeOptions);
    closeIteratorsWithTheirStreams(store);
    if (options.sync && options.path !== undefined) syncEveryWrite(store);
    return new Engine(store, delay, options);
  }

  /** Answers one DynamoDB API request (`operation` is the X-Amz-Target operation name). */
  async handle(operation: string, body: unknown, context: RequestContext = {}): Promise<EngineResponse> {
    const handler = (context.service === 'streams' ? this.streamsHandlers : this.handlers).get(operation);
    if (!handler) return { status: 400, body: { __type: `${CORAL_SERVICE}UnknownOperationException` } };
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return { status: 400, body: { __type: `${CORAL_SERVICE}SerializationException` } };
    }
    if (this.closing) return toErrorResponse(apiError(`${CORAL_SERVICE}ServiceUnavailable`, 'The engine is closed', {}, 503));
    try {
      // Before dynalite parses anything (Amazon's 4 KB bound on each expression).
      rejectOversizedExpressions(operation, body);
      // dynalite's validation prunes and rewrites the request in place: give it a copy.
      const data = handler.validate(structuredClone(body) as Record<string, unknown>);
      const admitted = await this.conflicts?.admit(operation, data); // in flight until answered
      try {
        const { result, visibleAt } = await this.lock.with(handler.exclusive, async () => {
          this.streams.serviceWrite = handler.exclusive && context.asService === true; // alone under the exclusive lock
          try {
            return {
              result: await handler.execute(data),
              visibleAt: handler.exclusive ? (this.staleReads?.takeCommitVisibleAt() ?? 0) : 0,
            };
          } finally {
            this.streams.serviceWrite = false;
          }
        });
        // A transaction answers once every item is visible to read-committed reads (stale-reads.ts).
        if (visibleAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, visibleAt - Date.now()));
        return { status: 200, body: result ?? {} };
      } finally {
        admitted?.();
      }
    } catch (err) {
      return toErrorResponse(err);
    }
  }

  /** LevelDB iterators open now (0 when no Query/Scan is running), and opened since the engine started. */
  get iterators(): IteratorCounts {
    return iteratorCounts(this.store);
  }

  /** Transaction conflicts produced so far (zeros without `conflicts`). */
  get conflictCounts(): ConflictCounts {
    return { ...(this.conflicts?.counts ?? { transactionsCancelled: 0, forced: 0, singleWritesRefused: 0 }) };
  }

  /** Resolves once every acknowledged write shows in the GSIs (at once without `gsiLagMs`). */
  indexesSettled(): Promise<void> {
    return this.indexLag?.settled() ?? Promise.resolve();
  }

  /** Resolves once no eventually consistent read can return a previous version (at once with 'strong'). */
  readsSettled(): Promise<void> {
    return this.staleReads?.settled() ?? Promise.resolve();
  }

  /**
   * Refuses new requests, waits for dynalite's pending table-status timers (so an on-disk table is
   * never left CREATING) and for requests already admitted, then closes LevelDB. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.resumed;
      const statusSettlesIn = this.lastTableStatusChangeAt + this.tableStatusDelayMs + 20 - Date.now();
      if (statusSettlesIn > 0) await new Promise((resolve) => setTimeout(resolve, statusSettlesIn));
      await this.lock.acquire(true); // waits for admitted requests; never released
      await this.indexLag?.drain(); // lagging GSI writes reach the disk before it closes
      await this.store.lifecycleManager.gracefulClose();
    })();
    return this.closing;
  }

  private dynaliteHandler(operation: DynaliteOperation): OperationHandler {
    const action = loadAction(operation);
    const validation = withAmazonMembers(operation, loadValidation(operation));
    const handler: OperationHandler = {
      exclusive: !READ_OPERATIONS.has(operation),
      validate: (body) =>
        readableShape(() => {
          const data = validations.checkTypes(withoutLeadingPlus(body), validation.types);
          validations.checkValidations(data, validation.types, validation.custom, this.store);
          return data;
        }),
      execute: async (data) => {
        if (TABLE_STATUS_OPERATIONS.has(operation)) this.lastTableStatusChangeAt = Date.now();
        if (this.staleReads && READ_VIEWS.has(operation)) {
          const views = readViews(operation, data);
          // Only a Query or Scan streams a table's values (createValueStream needs its definition).
          const tables = new Map(
            operation === 'Query' || operation === 'Scan'
              ? await Promise.all([...views.keys()].map(async (name) => [name, await getTable(this.store, name)] as const))
              : [],
          );
          return runAction(action, this.staleReads.readerStore(views, tables), data);
        }
        if (!ITEM_WRITE_OPERATIONS.has(operation)) return runAction(action, this.store, data);
        const writes = atomicWritesStore(this.store);
        const result = await runAction(action, writes.store, data);
        await writes.commit();
        return result;
      },
    };
    if (operation === 'DeleteTable') return this.forgettingTimeToLive(handler);
    if (operation === 'CreateTable') return namingExistingTable(handler);
    if (SINGLE_ITEM_WRITES.has(operation)) return this.returningItemOnConditionFailure(handler);
    // DescribeTimeToLive is replaced by ttl.ts's handler, registered after this one.
    return handler;
  }

  /** DeleteTable also drops the table's TTL setting, so a new table of that name starts without. */
  private forgettingTimeToLive(handler: OperationHandler): OperationHandler {
    return {
      ...handler,
      execute: async (data: { TableName: string }) => {
        const result = await handler.execute(data);
        await forgetTimeToLive(this.store, data.TableName);
        this.indexLag?.forgetTable(data.TableName);
        return deletedTableAnswer(result);
      },
    };
  }

  /**
   * Amazon's ReturnValuesOnConditionCheckFailure=ALL_OLD on PutItem/UpdateItem/DeleteItem: the
   * ConditionalCheckFailedException carries the item. The item is read while the exclusive lock is
   * still held, so it is the item the condition was evaluated against.
   */
  private returningItemOnConditionFailure(handler: OperationHandler): OperationHandler {
    return {
      ...handler,
      execute: async (data: { TableName: string; Key?: Item; Item?: Item; ReturnValuesOnConditionCheckFailure?: string }) => {
        try {
          return await handler.execute(data);
        } catch (err) {
          if (data.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD' || !isApiError(err)) throw err;
          if (!err.body.__type.endsWith('#ConditionalCheckFailedException')) throw err;
          const table = await getTable(this.store, data.TableName);
          const key = db.createKey((data.Item ?? data.Key) as Item, table);
          const current = await readItem(this.store, data.TableName, key);
          if (current) err.body.Item = current;
          throw err;
        }
      },
    };
  }
}

/** Reads that may see previous versions (stale-reads.ts). */
const READ_VIEWS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);

/**
 * How a read sees each table it reads: without ConsistentRead, eventually; with it, GetItem is
 * serializable against transactions and BatchGetItem/Query/Scan read-committed (DynamoDB's isolation levels).
 */
function readViews(
  operation: string,
  data: { TableName?: string; ConsistentRead?: boolean; RequestItems?: Record<string, { ConsistentRead?: boolean }> },
): Map<string, ReadView> {
  const consistent: ReadView = operation === 'GetItem' ? 'serializable' : 'committed';
  if (data.TableName !== undefined) return new Map([[data.TableName, data.ConsistentRead ? consistent : 'eventual']]);
  return new Map(
    Object.entries(data.RequestItems ?? {}).map(([name, request]) => [name, request.ConsistentRead ? consistent : 'eventual']),
  );
}

/** Request members Amazon accepts and dynalite's validations drop: ReturnValuesOnConditionCheckFailure, Scan's ConsistentRead. */
function withAmazonMembers(operation: DynaliteOperation, validation: OperationValidation): OperationValidation {
  // dynalite's Scan checks ConsistentRead on a GSI, but its validation drops the member: keep it.
  if (operation === 'Scan') return { ...validation, types: { ...validation.types, ConsistentRead: 'Boolean' } };
  if (!SINGLE_ITEM_WRITES.has(operation)) return validation;
  return {
    ...validation,
    types: { ...validation.types, ReturnValuesOnConditionCheckFailure: { type: 'String', enum: ['ALL_OLD', 'NONE'] } },
  };
}
