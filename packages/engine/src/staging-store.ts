/**
 * The staging store: a stand-in for dynalite's store for ONE action on ONE item, so dynalite's own
 * item actions (PutItem/UpdateItem/DeleteItem, with their conditions, update expressions, size
 * limit and `updateIndexes`) can run inside a transaction without writing. Its item db answers
 * reads from the snapshot and records writes; its index dbs record the GSI/LSI entries produced.
 * The recorded LevelDB operations carry full keys (dynalite's sub-database prefixes), ready for the
 * transaction's single `batch`.
 */
import type { BatchOperation, Callback, Item, Store, SubDb, TableDescription } from './dynalite-internals';

export interface RecordedWrites {
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
export function itemKeyPrefix(tableName: string): string {
  return `item-${tableName}~`;
}
export function indexKeyPrefix(indexType: 'Local' | 'Global', tableName: string, indexName: string): string {
  return `index-${indexType.toLowerCase()}~${tableName}~${indexName}~`;
}

export /** A store for one action on one item of `table`; only what dynalite's item actions use. */
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
