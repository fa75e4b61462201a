/**
 * Online index operations: UpdateTable's `GlobalSecondaryIndexUpdates` `Create` and `Delete`.
 * dynalite 4.0.0 validates both and then ignores them (no index is made or removed), and demands
 * ProvisionedThroughput for a new index even on an on-demand table. Here they are DynamoDB's:
 *
 * - Create: the index joins the table's description as CREATING with `Backfilling: true`, the
 *   request's AttributeDefinitions join the table's, the table is UPDATING; after the engine's
 *   table-status delay both are ACTIVE (Backfilling gone). The backfill itself runs inside the
 *   request, under the engine's exclusive lock: every item then in the table with the index's key
 *   attributes, of their defined types, gets its entry, projected as declared, computed by dynalite's
 *   own `getIndexActions` (as its write path computes them) and written at once, not through the GSI
 *   lag (ACTIVE means backfilled). The table description with the index is stored in the same
 *   exclusive section, so every later write sees the index and indexes the item by the normal path
 *   (lagged like any GSI write): each item is indexed exactly once, by the backfill or by its write.
 * - Delete: the index is DELETING, the table UPDATING; after the delay the index leaves the
 *   description, its entries are removed and its lagging writes dropped, the table is ACTIVE.
 * - Query/Scan on a CREATING index: "Cannot read from backfilling global secondary index: <name>";
 *   on a DELETING one, the answer for an unknown index.
 *
 * Refusals, with DynamoDB's messages: more than one Create/Delete per request, or one while another
 * index of the table is being created or deleted (LimitExceededException "Subscriber limit
 * exceeded: Only 1 online index can be created or deleted simultaneously per table"); an index name
 * the table has ("Attempting to create an index which already exists"); a 21st GSI; index
 * ProvisionedThroughput on an on-demand table, or none on a provisioned one; an AttributeDefinition
 * that gives an existing attribute another type; a Delete of an unknown index (ResourceNotFound).
 * Stricter than DynamoDB, knowingly: a Create/Delete is applied alone (with ProvisionedThroughput,
 * BillingMode or an index Update in the same request it is refused: dynalite's own status timer
 * would write its stale copy of the table over the new index), and while an index is being created
 * or deleted any other table update but a stream change is refused (Amazon allows some once the
 * backfill has begun); a CREATING index cannot be deleted (Amazon allows it while backfilling).
 */
import { db, getTable, type Item, type Store, type TableDescription } from './dynalite-internals';
import { DYNAMODB_ERROR, apiError, validationException } from './errors';
import type { OperationHandler } from './operation';
import { keyWithinLimits } from './key-limits';
import { indexKeyPrefix, itemKeyPrefix } from './staging-store';

export interface IndexUpdateOptions {
  /** How long a new index stays CREATING and a deleted one DELETING: the engine's table-status delay, in ms. */
  statusDelayMs: number;
  /** Runs `work` holding the engine's lock exclusively (the status changes after the delay). */
  exclusively(work: () => Promise<void>): Promise<void>;
  /** Drops the lagging GSI writes of a deleted index (index-lag.ts). */
  forgetIndex(tableName: string, indexName: string): void;
  /** Called when a status change is scheduled, so the engine's close waits for it as for dynalite's. */
  statusChanging(): void;
}

interface KeyElement {
  AttributeName: string;
  KeyType: 'HASH' | 'RANGE';
}
interface Throughput {
  ReadCapacityUnits: number;
  WriteCapacityUnits: number;
}
interface CreateAction {
  IndexName: string;
  KeySchema: KeyElement[];
  Projection: { ProjectionType?: string; NonKeyAttributes?: string[] };
  ProvisionedThroughput?: Throughput;
}
interface IndexUpdate {
  Create?: CreateAction;
  Delete?: { IndexName: string };
  Update?: unknown;
}
interface UpdateTableRequest {
  TableName: string;
  AttributeDefinitions?: { AttributeName: string; AttributeType: string }[];
  GlobalSecondaryIndexUpdates?: IndexUpdate[];
  ProvisionedThroughput?: Throughput;
  BillingMode?: string;
}
interface GlobalIndex {
  IndexName: string;
  KeySchema: KeyElement[];
  Projection: CreateAction['Projection'];
  IndexStatus?: string;
  Backfilling?: boolean;
  [member: string]: unknown;
}
type Table = Omit<TableDescription, 'GlobalSecondaryIndexes'> & {
  TableId?: string;
  TableArn: string;
  BillingModeSummary?: { BillingMode?: string };
  GlobalSecondaryIndexes?: GlobalIndex[];
};

/** DynamoDB's per-table quota of global secondary indexes. */
const MAX_GLOBAL_INDEXES = 20;
const INVALID = 'One or more parameter values were invalid: ';
const ONE_ONLINE_INDEX = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';
const IN_TRANSITION = new Set(['CREATING', 'DELETING']);

/** Wraps `handlers`' UpdateTable (dynalite's) with Create/Delete, and its Query and Scan with the index-status refusals. */
export function addIndexUpdatesToHandlers(handlers: Map<string, OperationHandler>, store: Store, options: IndexUpdateOptions): void {
  const wrap = (operation: string, make: (inner: OperationHandler) => OperationHandler) => {
    const inner = handlers.get(operation);
    if (!inner) throw new Error(`no ${operation} handler to add index updates to`);
    handlers.set(operation, make(inner));
  };
  wrap('UpdateTable', (inner) => ({
    ...inner,
    validate: (body) => {
      const data = inner.validate(body) as UpdateTableRequest;
      checkOnlineRequest(data);
      return data;
    },
    execute: (data: UpdateTableRequest) => updateTable(store, options, inner, data),
  }));
  for (const operation of ['Query', 'Scan']) {
    wrap(operation, (inner) => ({
      ...inner,
      execute: async (data: { TableName: string; IndexName?: string }) => {
        if (data.IndexName !== undefined) {
          const table = (await getTable(store, data.TableName)) as Table;
          const status = table.GlobalSecondaryIndexes?.find((index) => index.IndexName === data.IndexName)?.IndexStatus;
          if (status === 'CREATING') throw validationException(`Cannot read from backfilling global secondary index: ${data.IndexName}`);
          if (status === 'DELETING') throw validationException(`The table does not have the specified index: ${data.IndexName}`);
        }
        return inner.execute(data);
      },
    }));
  }
}

/** The checks that need only the request: one online action, alone, with a well-formed key schema. */
function checkOnlineRequest(data: UpdateTableRequest): void {
  const updates = data.GlobalSecondaryIndexUpdates ?? [];
  // One action per update (Alternator's test_gsi_updatetable_errors: Amazon refuses a Create and a
  // Delete in one map, "…one…"; the wording here is ours). dynalite applied the Create, dropped the Delete.
  if (updates.some((update) => [update.Create, update.Update, update.Delete].filter(Boolean).length > 1)) {
    throw validationException(
      `${INVALID}Only one of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete can be set in one update`,
    );
  }
  const online = updates.filter((update) => update.Create || update.Delete);
  if (!online.length) return;
  if (online.length > 1) throw limitExceeded(ONE_ONLINE_INDEX);
  if (online.length < updates.length || data.ProvisionedThroughput || data.BillingMode) {
    throw validationException(
      `${INVALID}an index Create or Delete is applied alone here: send ProvisionedThroughput, BillingMode and index Updates in another UpdateTable`,
    );
  }
  const create = online[0]?.Create;
  if (!create) return;
  const [hash, range] = create.KeySchema;
  if (range && hash?.AttributeName === range.AttributeName) {
    throw validationException('Both the Hash Key and the Range Key element in the KeySchema have the same name');
  }
  if (hash?.KeyType !== 'HASH') throw validationException('Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
  if (range && range.KeyType !== 'RANGE')
    throw validationException('Invalid KeySchema: The second KeySchemaElement is not a RANGE key type');
  if (create.Projection.ProjectionType == null) throw validationException(`${INVALID}Unknown ProjectionType: null`);
}

async function updateTable(store: Store, options: IndexUpdateOptions, inner: OperationHandler, data: UpdateTableRequest): Promise<unknown> {
  const table = (await getTable(store, data.TableName, false)) as Table;
  const transition = table.GlobalSecondaryIndexes?.some((index) => IN_TRANSITION.has(index.IndexStatus ?? ''));
  const online = data.GlobalSecondaryIndexUpdates?.find((update) => update.Create || update.Delete);
  if (transition) {
    if (online) throw limitExceeded(ONE_ONLINE_INDEX);
    throw resourceInUse(`Attempt to change a resource which is still in use: Table is being updated: ${data.TableName}`);
  }
  if (!online) return inner.execute(data);
  if (table.TableStatus !== 'ACTIVE') {
    const being = table.TableStatus === 'CREATING' ? 'created' : table.TableStatus === 'DELETING' ? 'deleted' : 'updated';
    throw resourceInUse(`Attempt to change a resource which is still in use: Table is being ${being}: ${data.TableName}`);
  }
  if (online.Create) createIndex(table, online.Create, data.AttributeDefinitions ?? []);
  else if (online.Delete) deleteIndex(table, online.Delete.IndexName);
  await putTable(store, table);
  if (online.Create) await backfill(store, table, online.Create.IndexName);
  scheduleStatusChange(store, options, table, online);
  return { TableDescription: structuredClone(table) };
}

/** Adds the index (CREATING, backfilling) and its attribute definitions to `table`, refusing as DynamoDB does. */
function createIndex(table: Table, create: CreateAction, definitions: { AttributeName: string; AttributeType: string }[]): void {
  const indexes = table.GlobalSecondaryIndexes ?? [];
  const names = [...indexes, ...(table.LocalSecondaryIndexes ?? [])].map((index) => index.IndexName);
  if (names.includes(create.IndexName)) throw validationException('Attempting to create an index which already exists');
  if (indexes.length >= MAX_GLOBAL_INDEXES) {
    throw limitExceeded(`${INVALID}GlobalSecondaryIndex count exceeds the per-table limit of ${MAX_GLOBAL_INDEXES}`);
  }
  const onDemand = table.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST';
  if (onDemand && create.ProvisionedThroughput) {
    throw validationException(
      `${INVALID}ProvisionedThroughput should not be specified for index: ${create.IndexName} when BillingMode is PAY_PER_REQUEST`,
    );
  }
  if (!onDemand && !create.ProvisionedThroughput) {
    throw validationException(`${INVALID}ProvisionedThroughput must be specified for index: ${create.IndexName}`);
  }
  for (const definition of definitions) {
    const existing = table.AttributeDefinitions.find((known) => known.AttributeName === definition.AttributeName);
    if (existing && existing.AttributeType !== definition.AttributeType) {
      throw validationException(
        `${INVALID}Attribute ${definition.AttributeName} is defined as ${existing.AttributeType} on the table and cannot be redefined as ${definition.AttributeType}`,
      );
    }
    if (!existing) table.AttributeDefinitions.push({ ...definition });
  }
  const throughput = create.ProvisionedThroughput ?? { ReadCapacityUnits: 0, WriteCapacityUnits: 0 };
  table.GlobalSecondaryIndexes = [
    ...indexes,
    {
      IndexName: create.IndexName,
      KeySchema: create.KeySchema,
      Projection: create.Projection,
      IndexStatus: 'CREATING',
      Backfilling: true,
      ProvisionedThroughput: { ...throughput, NumberOfDecreasesToday: 0 },
      IndexSizeBytes: 0,
      ItemCount: 0,
      IndexArn: `${table.TableArn}/index/${create.IndexName}`,
    },
  ];
  table.TableStatus = 'UPDATING';
}

function deleteIndex(table: Table, indexName: string): void {
  const index = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === indexName);
  if (!index) throw apiError(`${DYNAMODB_ERROR}ResourceNotFoundException`, `Requested resource not found: Index: ${indexName} not found`);
  index.IndexStatus = 'DELETING';
  table.TableStatus = 'UPDATING';
}

/**
 * Writes the entry of every item of the table that qualifies for the new index, as one LevelDB
 * batch. An item that would violate the index key is skipped, as DynamoDB's backfill skips it
 * ("Detecting and correcting index key violations"): a key attribute missing, of another type than
 * its definition, empty, or over the key limits (2,048 bytes partition, 1,024 sort); the item stays
 * in the table without an index entry. The caller holds the lock exclusively, and has stored the
 * description with the index, so no write comes between.
 */
async function backfill(store: Store, table: Table, indexName: string): Promise<void> {
  const index = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === indexName) as GlobalIndex;
  const types = new Map(table.AttributeDefinitions.map((definition) => [definition.AttributeName, definition.AttributeType]));
  const qualifies = (item: Item) =>
    index.KeySchema.every(({ AttributeName }) => {
      const value = item[AttributeName]?.[types.get(AttributeName) ?? ''] as unknown;
      return typeof value === 'string' && value !== '';
    }) && keyWithinLimits(item, index.KeySchema, table as unknown as TableDescription);
  const prefix = indexKeyPrefix('Global', table.TableName, indexName);
  const operations = [];
  for (const [, item] of await entries(store, itemKeyPrefix(table.TableName))) {
    if (!qualifies(item as Item)) continue;
    for (const put of db.getIndexActions([index], undefined, item as Item, table).puts) {
      operations.push({ type: 'put' as const, key: prefix + put.key, value: put.item });
    }
  }
  if (operations.length) await store.db.batch(operations);
}

/**
 * With `path`, an engine stopped during an index's status delay (killed, or crashed between storing
 * the description and its backfill) leaves the index CREATING or DELETING on disk, where no timer
 * would ever finish it. On open, under the exclusive lock (taken before any request can be), each
 * such index is finished as its request would have finished it: a CREATING one is backfilled again
 * (idempotent: the entries of the items as they are now) and becomes ACTIVE after the delay, a
 * DELETING one leaves the description with its entries. A table left CREATING or UPDATING by
 * dynalite's timers becomes ACTIVE; one left DELETING stays so (its items are not removed).
 */
export function resumeIndexUpdates(store: Store, options: IndexUpdateOptions): Promise<void> {
  return options.exclusively(async () => {
    // dynalite keeps each table's description under `table~<name>` in the one LevelDB.
    for (const [, value] of await entries(store, 'table~')) {
      const table = value as Table;
      const inTransition = table.GlobalSecondaryIndexes?.some((index) => IN_TRANSITION.has(index.IndexStatus ?? ''));
      // dynalite's own CreateTable/UpdateTable timers were lost the same way: the table becomes ACTIVE after the delay.
      if (table.TableStatus === 'CREATING' || (table.TableStatus === 'UPDATING' && !inTransition)) scheduleActive(store, options, table);
      for (const index of table.GlobalSecondaryIndexes ?? []) {
        if (index.IndexStatus === 'CREATING') {
          await backfill(store, table, index.IndexName);
          scheduleStatusChange(store, options, table, { Create: { IndexName: index.IndexName } as CreateAction });
        } else if (index.IndexStatus === 'DELETING') {
          scheduleStatusChange(store, options, table, { Delete: { IndexName: index.IndexName } });
        }
      }
    }
  });
}

/**
 * After the engine's status delay, under the exclusive lock: `change` on the table as stored then,
 * which is then stored; nothing if the table was deleted meanwhile, or deleted and created again.
 */
function scheduleTableChange(
  store: Store,
  options: IndexUpdateOptions,
  scheduled: Table,
  change: (table: Table) => Promise<void> | void,
): void {
  options.statusChanging();
  const apply = async () => {
    const table = (await getTable(store, scheduled.TableName, false).catch(() => undefined)) as Table | undefined;
    if (!table || table.TableId !== scheduled.TableId || table.TableStatus === 'DELETING') return;
    await change(table);
    await putTable(store, table);
  };
  setTimeout(() => {
    options.exclusively(apply).catch((err: unknown) => console.error('[engine] finishing a table update failed:', err));
  }, options.statusDelayMs);
}

/** A table left CREATING or UPDATING by dynalite's lost timers: ACTIVE after the delay. */
function scheduleActive(store: Store, options: IndexUpdateOptions, stalled: Table): void {
  scheduleTableChange(store, options, stalled, (table) => {
    table.TableStatus = 'ACTIVE';
  });
}

/** After the delay: the new index ACTIVE, or the deleted one gone with its entries; the table ACTIVE once no index is in transition. */
function scheduleStatusChange(store: Store, options: IndexUpdateOptions, updated: Table, update: IndexUpdate): void {
  const indexName = (update.Create ?? update.Delete)?.IndexName as string;
  scheduleTableChange(store, options, updated, async (table) => {
    const index = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === indexName);
    if (!index) return;
    if (update.Create) {
      index.IndexStatus = 'ACTIVE';
      delete index.Backfilling;
    } else {
      table.GlobalSecondaryIndexes = table.GlobalSecondaryIndexes?.filter((candidate) => candidate !== index);
      if (!table.GlobalSecondaryIndexes?.length) delete table.GlobalSecondaryIndexes;
      options.forgetIndex(table.TableName, indexName);
      const keys = await entries(store, indexKeyPrefix('Global', table.TableName, indexName));
      if (keys.length) await store.db.batch(keys.map(([key]) => ({ type: 'del' as const, key })));
    }
    if (!table.GlobalSecondaryIndexes?.some((candidate) => IN_TRANSITION.has(candidate.IndexStatus ?? ''))) table.TableStatus = 'ACTIVE';
  });
}

/** abstract-level's range iterator, read whole (it closes itself). */
interface RangeIterable {
  iterator(options: { gte: string; lt: string }): { all(): Promise<[string, unknown][]> };
}

/** Every [full key, value] of the LevelDB under `prefix`. */
function entries(store: Store, prefix: string): Promise<[string, unknown][]> {
  return (store.db as unknown as RangeIterable).iterator({ gte: prefix, lt: `${prefix}\xFF` }).all();
}

function putTable(store: Store, table: Table): Promise<void> {
  return new Promise((resolve, reject) => store.tableDb.put(table.TableName, table, (err) => (err ? reject(err) : resolve())));
}

function limitExceeded(message: string) {
  return apiError(`${DYNAMODB_ERROR}LimitExceededException`, message);
}

function resourceInUse(message: string) {
  return apiError(`${DYNAMODB_ERROR}ResourceInUseException`, message);
}
