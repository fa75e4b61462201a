/**
 * TransactWriteItems and TransactGetItems with Amazon DynamoDB's semantics, built from dynalite's
 * own parts. The engine runs TransactWriteItems holding its lock exclusively and TransactGetItems
 * holding it shared (see engine.ts), so each sees and leaves a consistent state.
 *
 * TransactWriteItems:
 *  1. Validation (no lock): the request shape through dynalite's `checkTypes`/`checkValidations`
 *     (so errors read like Amazon's, e.g. "Value ... at 'transactItems' failed to satisfy
 *     constraint: Member must have length less than or equal to 100"), then each action through
 *     dynalite's PutItem/UpdateItem/DeleteItem validator, which also parses its expressions.
 *  2. Keys and tables: every key is checked against its table's schema, and two actions on one
 *     item are refused, as Amazon does, before anything is read.
 *  3. Snapshot: every target item is read. Nothing else can write meanwhile (exclusive lock).
 *  4. Staging: each Put/Update/Delete runs dynalite's own action against a *staging store*, whose
 *     item db answers reads from the snapshot and records writes instead of making them, and whose
 *     index dbs record the GSI/LSI entries dynalite's `updateIndexes` produces. So conditions,
 *     update expressions (SET/REMOVE/ADD/DELETE, if_not_exists, list_append, ...), the item size
 *     limit and index maintenance are exactly dynalite's UpdateItem/PutItem code. ConditionCheck
 *     uses dynalite's `checkConditional`. Every action is evaluated against the snapshot, so all
 *     conditions are decided before anything is written.
 *  5. Outcome: any failed action cancels the whole transaction (TransactionCanceledException with
 *     one reason per action, in action order) and nothing recorded is written. Otherwise all
 *     recorded item and index writes go to LevelDB in ONE `batch`, which LevelDB applies
 *     atomically (its write-ahead log holds the batch as one record), so an on-disk engine killed
 *     mid-transaction holds all of it or none of it.
 */
import {
  db,
  getTable,
  loadAction,
  loadValidation,
  readItem,
  runAction,
  validations,
  type BatchOperation,
  type Callback,
  type DynaliteError,
  type Item,
  type OperationValidation,
  type Store,
  type SubDb,
  type TableDescription,
} from './dynalite-internals';
import { DYNAMODB_ERROR, apiError, isApiError, validationException } from './errors';
import type { OperationHandler } from './engine';

export function createTransactionHandlers(store: Store): Record<'TransactWriteItems' | 'TransactGetItems', OperationHandler> {
  const idempotency = new IdempotencyWindow();
  return {
    TransactWriteItems: {
      exclusive: true,
      validate: (body) => validateTransactWrite(body, store),
      execute: (request: TransactWriteRequest) => executeTransactWrite(store, idempotency, request),
    },
    TransactGetItems: {
      exclusive: false,
      validate: (body) => validateTransactGet(body, store),
      execute: (request: TransactGetRequest) => executeTransactGet(store, request),
    },
  };
}

/* ------------------------------------------------------------------------------------------------
 * Request shapes (dynalite's checkTypes notation) and validation
 * --------------------------------------------------------------------------------------------- */

const TABLE_NAME = { type: 'String', notNull: true, regex: '[a-zA-Z0-9_.-]+', lengthGreaterThanOrEqual: 3, lengthLessThanOrEqual: 255 };
const ATTRIBUTE_MAP = { type: 'Map<AttributeValue>', notNull: true, children: 'AttrStruct<ValueStruct>' };
const EXPRESSION_ATTRIBUTES = {
  ExpressionAttributeNames: { type: 'Map<java.lang.String>', children: 'String' },
  ExpressionAttributeValues: { type: 'Map<AttributeValue>', children: 'AttrStruct<ValueStruct>' },
};
const CONDITION_MEMBERS = {
  ConditionExpression: { type: 'String' },
  ...EXPRESSION_ATTRIBUTES,
  ReturnValuesOnConditionCheckFailure: { type: 'String', enum: ['ALL_OLD', 'NONE'] },
};
const RETURN_CONSUMED_CAPACITY = { type: 'String', enum: ['INDEXES', 'TOTAL', 'NONE'] };

const TRANSACT_WRITE_TYPES = {
  ClientRequestToken: { type: 'String', lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: 36 },
  ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  ReturnItemCollectionMetrics: { type: 'String', enum: ['SIZE', 'NONE'] },
  TransactItems: {
    type: 'List',
    notNull: true,
    lengthGreaterThanOrEqual: 1,
    lengthLessThanOrEqual: 100,
    children: {
      type: 'ValueStruct<TransactWriteItem>',
      children: {
        ConditionCheck: {
          type: 'FieldStruct<ConditionCheck>',
          children: { TableName: TABLE_NAME, Key: ATTRIBUTE_MAP, ...CONDITION_MEMBERS, ConditionExpression: { type: 'String', notNull: true } },
        },
        Put: { type: 'FieldStruct<Put>', children: { TableName: TABLE_NAME, Item: ATTRIBUTE_MAP, ...CONDITION_MEMBERS } },
        Delete: { type: 'FieldStruct<Delete>', children: { TableName: TABLE_NAME, Key: ATTRIBUTE_MAP, ...CONDITION_MEMBERS } },
        Update: {
          type: 'FieldStruct<Update>',
          children: { TableName: TABLE_NAME, Key: ATTRIBUTE_MAP, UpdateExpression: { type: 'String', notNull: true }, ...CONDITION_MEMBERS },
        },
      },
    },
  },
};

const TRANSACT_GET_TYPES = {
  ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  TransactItems: {
    type: 'List',
    notNull: true,
    lengthGreaterThanOrEqual: 1,
    lengthLessThanOrEqual: 100,
    children: {
      type: 'ValueStruct<TransactGetItem>',
      children: {
        Get: {
          type: 'FieldStruct<Get>',
          notNull: true,
          children: {
            TableName: TABLE_NAME,
            Key: ATTRIBUTE_MAP,
            ProjectionExpression: { type: 'String' },
            ExpressionAttributeNames: EXPRESSION_ATTRIBUTES.ExpressionAttributeNames,
          },
        },
      },
    },
  },
};

const WRITE_KINDS = ['ConditionCheck', 'Put', 'Delete', 'Update'] as const;
type WriteKind = (typeof WRITE_KINDS)[number];

/** Each action kind is validated by the dynalite operation it resembles (ConditionCheck: a Delete's members). */
const WRITE_VALIDATIONS: Record<WriteKind, OperationValidation> = {
  ConditionCheck: loadValidation('DeleteItem'),
  Put: loadValidation('PutItem'),
  Delete: loadValidation('DeleteItem'),
  Update: loadValidation('UpdateItem'),
};
const WRITE_ACTIONS = { Put: loadAction('PutItem'), Delete: loadAction('DeleteItem'), Update: loadAction('UpdateItem') };
const GET_VALIDATION = loadValidation('GetItem');
const GET_ACTION = loadAction('GetItem');

/** One action as a dynalite single-item request (expressions parsed into `_condition`/`_updates`). */
interface ItemRequest {
  TableName: string;
  Key?: Item;
  Item?: Item;
  [member: string]: unknown;
}

interface PlannedWrite {
  kind: WriteKind;
  request: ItemRequest;
  returnOldOnFailure: boolean;
}

interface TransactWriteRequest {
  writes: PlannedWrite[];
  returnConsumedCapacity: string | undefined;
  clientRequestToken: string | undefined;
  /** The request without its token: what a retry with the same token must repeat. */
  fingerprint: string;
}

interface TransactGetRequest {
  gets: ItemRequest[];
  returnConsumedCapacity: string | undefined;
}

function checkShape(body: unknown, types: Record<string, unknown>, store: Store): any {
  const data = validations.checkTypes(body, types);
  validations.checkValidations(data, types, undefined, store);
  return data;
}

function validateTransactWrite(body: unknown, store: Store): TransactWriteRequest {
  const data = checkShape(body, TRANSACT_WRITE_TYPES, store);
  const fingerprint = JSON.stringify({ ...data, ClientRequestToken: undefined });
  return {
    writes: (data.TransactItems as Record<string, any>[]).map((transactItem) => planWrite(transactItem, store)),
    returnConsumedCapacity: data.ReturnConsumedCapacity,
    clientRequestToken: data.ClientRequestToken,
    fingerprint,
  };
}

function planWrite(transactItem: Record<string, any>, store: Store): PlannedWrite {
  const kinds = WRITE_KINDS.filter((kind) => transactItem[kind] != null);
  const kind = kinds[0];
  if (kind === undefined || kinds.length > 1) {
    throw validationException('TransactItems can only contain one of Check, Put, Update or Delete');
  }
  const { ReturnValuesOnConditionCheckFailure, ...request } = transactItem[kind] as ItemRequest;
  rejectIfInvalid(WRITE_VALIDATIONS[kind].custom?.(request, store));
  return { kind, request, returnOldOnFailure: ReturnValuesOnConditionCheckFailure === 'ALL_OLD' };
}

function validateTransactGet(body: unknown, store: Store): TransactGetRequest {
  const data = checkShape(body, TRANSACT_GET_TYPES, store);
  const gets = (data.TransactItems as { Get: ItemRequest }[]).map(({ Get }) => {
    const request = { ...Get };
    rejectIfInvalid(GET_VALIDATION.custom?.(request, store));
    return request;
  });
  return { gets, returnConsumedCapacity: data.ReturnConsumedCapacity };
}

function rejectIfInvalid(message: string | undefined): void {
  if (message) throw validationException(message);
}

/* ------------------------------------------------------------------------------------------------
 * TransactWriteItems
 * --------------------------------------------------------------------------------------------- */

interface CancellationReason {
  Code: 'None' | 'ConditionalCheckFailed' | 'ValidationError';
  Message?: string;
  Item?: Item;
}

/** What one action will do, decided against the snapshot. */
interface StagedWrite {
  reason: CancellationReason;
  /** LevelDB operations (full keys), written only if every action succeeds. */
  operations: BatchOperation[];
  capacity: TableCapacity;
}

async function executeTransactWrite(store: Store, idempotency: IdempotencyWindow, request: TransactWriteRequest): Promise<unknown> {
  const replayed = idempotency.replay(request);
  if (replayed !== undefined) return replayed;

  const { writes } = request;
  const tables = await loadTables(store, writes.map((write) => write.request.TableName));
  const keys = writes.map((write) => checkedTargetKey(write, tableOf(tables, write.request)));
  rejectMultipleOperationsOnOneItem(writes.map((write, i) => `${write.request.TableName}\u0000${keys[i]}`));

  const snapshot = await Promise.all(writes.map((write, i) => readItem(store, write.request.TableName, keys[i] as string)));

  const staged: StagedWrite[] = [];
  for (const [i, write] of writes.entries()) {
    staged.push(await stageWrite(store, write, tableOf(tables, write.request), snapshot[i]));
  }
  if (staged.some((action) => action.reason.Code !== 'None')) {
    throw transactionCanceled(staged.map((action) => action.reason));
  }

  await store.db.batch(staged.flatMap((action) => action.operations));

  const result: Record<string, unknown> = {};
  const consumed = consumedCapacity(request.returnConsumedCapacity, 'WriteCapacityUnits', writes.map((write, i) => ({
    tableName: write.request.TableName,
    capacity: (staged[i] as StagedWrite).capacity,
  })));
  if (consumed) result.ConsumedCapacity = consumed;
  idempotency.remember(request, result);
  return result;
}

/** The item's dynalite key, after checking the key (or Put item) and update against the schema. */
function checkedTargetKey(write: PlannedWrite, table: TableDescription): string {
  const { request } = write;
  const target = (write.kind === 'Put' ? request.Item : request.Key) as Item;
  const invalid = write.kind === 'Put'
    ? db.validateItem(target, table)
    : db.validateKey(target, table) ?? (write.kind === 'Update' ? db.validateUpdates(request.AttributeUpdates, request._updates, table) : undefined);
  if (invalid) throw invalid;
  return db.createKey(target, table);
}

function rejectMultipleOperationsOnOneItem(itemIds: string[]): void {
  if (new Set(itemIds).size !== itemIds.length) {
    throw validationException('Transaction request cannot include multiple operations on one item');
  }
}

async function stageWrite(store: Store, write: PlannedWrite, table: TableDescription, existing: Item | undefined): Promise<StagedWrite> {
  const capacity = emptyTableCapacity();
  if (write.kind === 'ConditionCheck') {
    const failed = db.checkConditional(write.request, existing);
    capacity.table += writeUnits(sizeOf(existing));
    return { reason: failed ? conditionFailed(write, existing) : { Code: 'None' }, operations: [], capacity };
  }

  const recorded: RecordedWrites = { operations: [], item: existing, indexWrites: [] };
  try {
    await runAction(WRITE_ACTIONS[write.kind], stagingStore(store, table, existing, recorded), write.request);
  } catch (err) {
    return { reason: failureReason(err, write, existing), operations: [], capacity };
  }
  capacity.table += writeUnits(Math.max(sizeOf(existing), sizeOf(recorded.item)));
  for (const index of recorded.indexWrites) {
    const indexes = index.indexType === 'Global' ? capacity.globalIndexes : capacity.localIndexes;
    indexes.set(index.indexName, (indexes.get(index.indexName) ?? 0) + writeUnits(sizeOf(index.item ?? existing)));
  }
  return { reason: { Code: 'None' }, operations: recorded.operations, capacity };
}

/** A failed staged action's cancellation reason; errors that are not the action's own are rethrown. */
function failureReason(err: unknown, write: PlannedWrite, existing: Item | undefined): CancellationReason {
  if (!isApiError(err)) throw err;
  const type = err.body.__type;
  if (type.endsWith('#ConditionalCheckFailedException')) return conditionFailed(write, existing);
  // Runtime update errors (wrong operand type, invalid document path, item too large, ...):
  // Amazon reports these as the action's ValidationError and cancels the transaction.
  if (type.endsWith('#ValidationException')) return { Code: 'ValidationError', Message: err.body.message ?? err.message };
  throw err;
}

function conditionFailed(write: PlannedWrite, existing: Item | undefined): CancellationReason {
  const reason: CancellationReason = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
  if (write.returnOldOnFailure && existing) reason.Item = existing;
  return reason;
}

function transactionCanceled(reasons: CancellationReason[]): DynaliteError {
  const message = `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`;
  const err = apiError(`${DYNAMODB_ERROR}TransactionCanceledException`, message, { CancellationReasons: reasons });
  // Amazon spells this exception's message member `Message`.
  if (err.body) {
    delete err.body.message;
    err.body.Message = message;
  }
  return err;
}

/* ------------------------------------------------------------------------------------------------
 * The staging store: dynalite's actions run against it; it reads the snapshot and records writes
 * --------------------------------------------------------------------------------------------- */

interface RecordedWrites {
  operations: BatchOperation[];
  /** The item as the action leaves it (undefined once deleted). */
  item: Item | undefined;
  /** Index entries written (with the projected item) or removed. */
  indexWrites: { indexType: 'Local' | 'Global'; indexName: string; item?: Item }[];
}

/**
 * Key prefixes of dynalite's sub-databases. Mirrors dynalite 4.0.0 db/index.js: getItemDb(name) is
 * getSubDb('item-' + name), getIndexDb(type, table, index) is getSubDb('index-' + type.toLowerCase()
 * + '~' + table + '~' + index), and getSubDb(name) prefixes keys with name + '~'. The engine tests
 * read transactional writes back through dynalite's own GetItem/Query, which checks the mirror.
 */
function itemKeyPrefix(tableName: string): string {
  return `item-${tableName}~`;
}
function indexKeyPrefix(indexType: 'Local' | 'Global', tableName: string, indexName: string): string {
  return `index-${indexType.toLowerCase()}~${tableName}~${indexName}~`;
}

/** A store for one action on one item of `table`; only what dynalite's item actions use. */
function stagingStore(store: Store, table: TableDescription, existing: Item | undefined, recorded: RecordedWrites): Store {
  const itemPrefix = itemKeyPrefix(table.TableName);
  const itemDb: SubDb = {
    lock: (_key, critical) => critical((cb) => cb),
    get: (_key, cb) => cb(null, existing === undefined ? undefined : structuredClone(existing)),
    put: (key, item, cb) => {
      recorded.operations.push({ type: 'put', key: itemPrefix + key, value: item });
      recorded.item = item as Item;
      cb();
    },
    del: (key, cb) => {
      recorded.operations.push({ type: 'del', key: itemPrefix + key });
      recorded.item = undefined;
      cb();
    },
  };
  const indexDb = (indexType: 'Local' | 'Global', tableName: string, indexName: string): SubDb => {
    const prefix = indexKeyPrefix(indexType, tableName, indexName);
    return {
      lock: () => {
        throw new Error('staging store: index dbs are never locked');
      },
      get: () => {
        throw new Error('staging store: index dbs are never read');
      },
      put: (key, item, cb) => {
        recorded.operations.push({ type: 'put', key: prefix + key, value: item });
        recorded.indexWrites.push({ indexType, indexName, item: item as Item });
        cb();
      },
      del: (key, cb) => {
        recorded.operations.push({ type: 'del', key: prefix + key });
        recorded.indexWrites.push({ indexType, indexName });
        cb();
      },
    };
  };
  return {
    ...store,
    // dynalite's item actions call getTable(name, cb); the table was loaded (and checked) already.
    getTable: (_name: string, checkOrCallback: boolean | Callback<TableDescription>, cb?: Callback<TableDescription>) => {
      const callback = typeof checkOrCallback === 'function' ? checkOrCallback : cb;
      callback?.(null, table);
    },
    getItemDb: () => itemDb,
    getIndexDb: indexDb,
  };
}

/* ------------------------------------------------------------------------------------------------
 * TransactGetItems
 * --------------------------------------------------------------------------------------------- */

/**
 * Runs dynalite's GetItem (key checks, projection) for each Get. Holding the shared lock, no write
 * can land between the reads: the responses are one consistent snapshot.
 */
async function executeTransactGet(store: Store, request: TransactGetRequest): Promise<unknown> {
  const { gets } = request;
  const tables = await loadTables(store, gets.map((get) => get.TableName));
  const keys = gets.map((get) => {
    const table = tableOf(tables, get);
    const invalid = db.validateKey(get.Key as Item, table);
    if (invalid) throw invalid;
    return `${get.TableName}\u0000${db.createKey(get.Key as Item, table)}`;
  });
  rejectMultipleOperationsOnOneItem(keys);

  // ConsistentRead + TOTAL make dynalite report a strongly consistent read's units (1 per 4 KB).
  const answers: { Item?: Item; ConsumedCapacity: { CapacityUnits: number } }[] = await Promise.all(
    gets.map((get) => runAction(GET_ACTION, store, { ...get, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' })),
  );

  const result: Record<string, unknown> = {
    Responses: answers.map((answer) => (answer.Item ? { Item: answer.Item } : {})),
  };
  const consumed = consumedCapacity(request.returnConsumedCapacity, 'ReadCapacityUnits', gets.map((get, i) => {
    const capacity = emptyTableCapacity();
    capacity.table = 2 * (answers[i] as (typeof answers)[number]).ConsumedCapacity.CapacityUnits;
    return { tableName: get.TableName, capacity };
  }));
  if (consumed) result.ConsumedCapacity = consumed;
  return result;
}

/* ------------------------------------------------------------------------------------------------
 * Shared helpers
 * --------------------------------------------------------------------------------------------- */

async function loadTables(store: Store, names: string[]): Promise<Map<string, TableDescription>> {
  const unique = [...new Set(names)];
  const tables = await Promise.all(unique.map((name) => getTable(store, name)));
  return new Map(unique.map((name, i) => [name, tables[i] as TableDescription]));
}

function tableOf(tables: Map<string, TableDescription>, request: ItemRequest): TableDescription {
  const table = tables.get(request.TableName);
  if (!table) throw new Error(`table ${request.TableName} was not loaded`);
  return table;
}

/* Capacity. Transactions cost twice the plain operation: a write 2 units per KB (ConditionCheck
 * included, charged for the item it checks), a read 2 units per 4 KB; index entries written or
 * removed by a write are charged to their index. */

interface TableCapacity {
  table: number;
  globalIndexes: Map<string, number>;
  localIndexes: Map<string, number>;
}

function emptyTableCapacity(): TableCapacity {
  return { table: 0, globalIndexes: new Map(), localIndexes: new Map() };
}

function sizeOf(item: Item | undefined): number {
  if (!item) return 0;
  // An INCLUDE projection leaves the attributes an item lacks as undefined entries.
  const present = Object.fromEntries(Object.entries(item).filter(([, value]) => value != null));
  return db.itemSize(present);
}

function writeUnits(bytes: number): number {
  return 2 * Math.max(1, Math.ceil(bytes / 1024));
}

/** Amazon's ConsumedCapacity list (one entry per table) for TOTAL or INDEXES, else undefined. */
function consumedCapacity(
  mode: string | undefined,
  unitsMember: 'ReadCapacityUnits' | 'WriteCapacityUnits',
  perAction: { tableName: string; capacity: TableCapacity }[],
): unknown[] | undefined {
  if (mode !== 'TOTAL' && mode !== 'INDEXES') return undefined;
  const byTable = new Map<string, TableCapacity>();
  for (const { tableName, capacity } of perAction) {
    const sum = byTable.get(tableName) ?? emptyTableCapacity();
    sum.table += capacity.table;
    for (const [from, to] of [[capacity.globalIndexes, sum.globalIndexes], [capacity.localIndexes, sum.localIndexes]] as const) {
      for (const [name, units] of from) to.set(name, (to.get(name) ?? 0) + units);
    }
    byTable.set(tableName, sum);
  }
  const units = (n: number) => ({ CapacityUnits: n, [unitsMember]: n });
  const indexUnits = (indexes: Map<string, number>) => Object.fromEntries([...indexes].map(([name, n]) => [name, units(n)]));
  return [...byTable].map(([tableName, sum]) => {
    const total = sum.table + [...sum.globalIndexes.values(), ...sum.localIndexes.values()].reduce((a, b) => a + b, 0);
    const entry: Record<string, unknown> = { TableName: tableName, ...units(total) };
    if (mode === 'INDEXES') {
      entry.Table = units(sum.table);
      if (sum.globalIndexes.size) entry.GlobalSecondaryIndexes = indexUnits(sum.globalIndexes);
      if (sum.localIndexes.size) entry.LocalSecondaryIndexes = indexUnits(sum.localIndexes);
    }
    return entry;
  });
}

/**
 * Amazon's ClientRequestToken: a TransactWriteItems that succeeded is not applied again when
 * repeated with the same token within 10 minutes; the repeat gets the first answer. The same token
 * with a different request is an IdempotentParameterMismatchException. (The AWS SDK fills the token
 * in and reuses it when it retries.) Failed transactions are not remembered: a retry runs again.
 */
class IdempotencyWindow {
  private static readonly WINDOW_MS = 10 * 60 * 1000;
  private readonly entries = new Map<string, { fingerprint: string; result: unknown; expiresAt: number }>();

  replay(request: TransactWriteRequest): unknown {
    this.forgetExpired();
    if (request.clientRequestToken === undefined) return undefined;
    const entry = this.entries.get(request.clientRequestToken);
    if (!entry) return undefined;
    if (entry.fingerprint !== request.fingerprint) {
      throw apiError(
        `${DYNAMODB_ERROR}IdempotentParameterMismatchException`,
        'The request uses the same client token as a previous, but non-identical request.',
      );
    }
    return entry.result;
  }

  remember(request: TransactWriteRequest, result: unknown): void {
    if (request.clientRequestToken === undefined) return;
    this.entries.set(request.clientRequestToken, {
      fingerprint: request.fingerprint,
      result,
      expiresAt: Date.now() + IdempotencyWindow.WINDOW_MS,
    });
  }

  /** Entries expire in insertion order, so the scan stops at the first live one. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [token, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.entries.delete(token);
    }
  }
}
