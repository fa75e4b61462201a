/**
 * Query and Scan's reading loop, in UTF-8 bytes as DynamoDB counts them.
 *
 * dynalite (4.0.0) runs both through `db.queryTable`, which sized every item with its internal
 * `itemSize` (UTF-16 code units): a non-ASCII page was under-counted against the 1 MB page limit
 * and its ConsumedCapacity under-reported. This is the same loop with item-size.ts's `utf8ItemSize`,
 * installed in place of dynalite's export (dynalite-internals.ts), since its query and scan actions
 * call it through the module's exports. The 1 MB page counts the same UTF-8 sizes (dynalite used its
 * own compressed-plus-overhead estimate), and an index entry whose item is gone is skipped (dynalite
 * threw). Everything else is dynalite's behaviour, kept on purpose:
 * - a page stops before the item that would follow `Limit` items or 1 MB read, and then carries a
 *   LastEvaluatedKey (also when the Limit-th item happened to be the last, as on DynamoDB);
 * - filters apply after the page is cut (ScannedCount counts items read, Count items returned);
 * - capacity: items read, rounded up per 4 KB for the table and for the index, halved unless
 *   ConsistentRead; `fetchFromItemDb` (an LSI read for attributes it does not project) reads each
 *   item from the table too.
 * The source stream is destroyed when the loop stops early, which closes its LevelDB iterator.
 */
import type { Readable } from 'node:stream';
import type { Callback, Item, Store, TableDescription } from 'dynalite/db/index.js';
import { utf8ItemSize } from './item-size';

/** DynamoDB's page limit for Query and Scan: 1 MB of items read. */
const MAX_PAGE_BYTES = 1024 * 1024;

interface QueryData {
  TableName: string;
  IndexName?: string;
  Limit?: number;
  ConsistentRead?: boolean;
  ReturnConsumedCapacity?: string;
  Select?: string;
  QueryFilter?: unknown;
  ScanFilter?: unknown;
  ConditionalOperator?: string;
  AttributesToGet?: string[];
  _filter?: { expression: unknown };
  _projection?: { paths: unknown };
}

/** The dynalite `db` exports this loop uses (and the one it replaces). */
export interface QueryTableExports {
  createKey(item: Item, table: TableDescription): string;
  matchesFilter(item: Item, filter: unknown, conditionalOperator?: string): boolean;
  matchesExprFilter(item: Item, expression: unknown): boolean;
  mapPaths(paths: unknown, item: Item): Item;
  queryTable: unknown;
}

const installed = new WeakSet<object>();

/** Replaces dynalite's `queryTable` export by the UTF-8 loop (once per module instance). */
export function installUtf8QueryTable(db: QueryTableExports): void {
  if (installed.has(db)) return;
  installed.add(db);
  db.queryTable = (...args: [...QueryTableArgs, Callback<unknown>]) => {
    const cb = args[7];
    queryTable(db, ...(args.slice(0, 7) as QueryTableArgs)).then(
      (result) => cb(null, result),
      (err: Error) => cb(err as never),
    );
  };
}

/** dynalite's `queryTable(store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb)`, without the callback. */
type QueryTableArgs = [
  store: Store,
  table: TableDescription,
  data: QueryData,
  opts: Record<string, unknown>,
  isLocal: boolean,
  fetchFromItemDb: boolean,
  startKeyNames: string[],
];

async function queryTable(
  db: QueryTableExports,
  ...[store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames]: QueryTableArgs
): Promise<Record<string, unknown>> {
  const itemDb = store.getItemDb(data.TableName);
  const readable = data.IndexName ? store.getIndexDb(isLocal ? 'Local' : 'Global', data.TableName, data.IndexName) : itemDb;
  if (!readable.createValueStream) throw new Error('queryTable needs a readable store');
  const source: Readable = readable.createValueStream(opts);
  const limit = data.Limit ?? Infinity;
  let tableBytes = 0;
  let indexBytes = 0;
  let pageBytes = 0;
  const read: Item[] = [];
  try {
    for await (const value of source as AsyncIterable<Item>) {
      if (read.length >= limit || pageBytes >= MAX_PAGE_BYTES) break;
      let item = value;
      let size = utf8ItemSize(value);
      if (fetchFromItemDb) {
        indexBytes += size;
        const full = await getItem(itemDb, db.createKey(value, table));
        if (!full) continue; // deleted between the index entry and the item: not read
        item = full;
        size = utf8ItemSize(item);
        tableBytes += size;
      } else if (data.IndexName) {
        indexBytes += size;
      } else {
        tableBytes += size;
      }
      pageBytes += size;
      read.push(item);
    }
  } finally {
    source.destroy();
  }

  const cut = read.length >= limit || pageBytes >= MAX_PAGE_BYTES;
  const last = read[read.length - 1];
  let items = read;
  if (data._filter) items = items.filter((item) => db.matchesExprFilter(item, data._filter?.expression));
  else if (data.QueryFilter || data.ScanFilter) {
    items = items.filter((item) => db.matchesFilter(item, data.QueryFilter ?? data.ScanFilter, data.ConditionalOperator));
  }
  const result: Record<string, unknown> = { ScannedCount: read.length };
  if (cut && last) result.LastEvaluatedKey = Object.fromEntries(startKeyNames.map((name) => [name, last[name]]));
  const paths = data._projection ? data._projection.paths : data.AttributesToGet;
  if (paths) items = items.map((item) => db.mapPaths(paths, item));
  result.Count = items.length;
  if (data.Select !== 'COUNT') result.Items = items;
  if (data.ReturnConsumedCapacity === 'TOTAL' || data.ReturnConsumedCapacity === 'INDEXES') {
    const units = (bytes: number) => Math.ceil(bytes / 1024 / 4) * (data.ConsistentRead ? 1 : 0.5);
    const tableUnits = units(tableBytes);
    const indexUnits = units(indexBytes);
    const consumed: Record<string, unknown> = { CapacityUnits: tableUnits + indexUnits, TableName: data.TableName };
    if (data.ReturnConsumedCapacity === 'INDEXES') {
      consumed.Table = { CapacityUnits: tableUnits };
      if (data.IndexName) {
        consumed[isLocal ? 'LocalSecondaryIndexes' : 'GlobalSecondaryIndexes'] = { [data.IndexName]: { CapacityUnits: indexUnits } };
      }
    }
    result.ConsumedCapacity = consumed;
  }
  return result;
}

function getItem(itemDb: ReturnType<Store['getItemDb']>, key: string): Promise<Item | undefined> {
  return new Promise((resolve, reject) => {
    itemDb.get(key, (err, item) => {
      if (err && err.name !== 'NotFoundError') reject(err);
      else resolve((item as Item | undefined) ?? undefined);
    });
  });
}
