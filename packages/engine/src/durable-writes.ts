/**
 * Durability of the engine's writes on disk, in our layer (dynalite itself is not edited):
 *
 * - Atomic single-item writes. dynalite's PutItem/UpdateItem/DeleteItem (and BatchWriteItem, which
 *   runs them) write each index entry, then the item, as separate LevelDB writes: a crash in
 *   between leaves an index entry without its item, or the reverse. `atomicWritesStore` gives one
 *   request a store whose item and index dbs record their puts and deletes (reads and per-key locks
 *   are the real store's); `commit` then applies everything the request wrote as ONE LevelDB
 *   `batch`, which LevelDB applies atomically, as transactions do (transact-write.ts). The engine
 *   holds its lock exclusively for every write, so nobody reads between the action and its commit.
 * - `--sync`: `syncEveryWrite` makes every LevelDB write of the store (items, indexes, tables, TTL
 *   settings, transactions) use LevelDB's `sync: true` write option: the write-ahead log is
 *   fsynced before the write is acknowledged, so an acknowledged write survives a machine crash,
 *   not only a process crash.
 */
import type { BatchOperation, Store, SubDb } from './dynalite-internals';
import { commitBatch } from './index-lag';
import { indexKeyPrefix, itemKeyPrefix } from './staging-store';

/** dynalite's write actions that run its index-then-item write sequence. */
export const ITEM_WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

export interface AtomicWrites {
  /** The store to run the dynalite action against. */
  store: Store;
  /** Applies what the action wrote as one LevelDB batch (nothing when it wrote nothing). */
  commit(): Promise<void>;
}

export function atomicWritesStore(store: Store): AtomicWrites {
  const operations: BatchOperation[] = [];
  const recording = (real: SubDb, prefix: string): SubDb => ({
    lock: (key, fn) => real.lock(key, fn),
    get: (key, cb) => real.get(key, cb),
    put: (key, value, cb) => {
      operations.push({ type: 'put', key: prefix + key, value });
      setImmediate(cb, null);
    },
    del: (key, cb) => {
      operations.push({ type: 'del', key: prefix + key });
      setImmediate(cb, null);
    },
  });
  const itemDbs = new Map<string, SubDb>();
  return {
    store: {
      ...store,
      getItemDb: (tableName) => {
        let itemDb = itemDbs.get(tableName);
        if (!itemDb) itemDbs.set(tableName, (itemDb = recording(store.getItemDb(tableName), itemKeyPrefix(tableName))));
        return itemDb;
      },
      getIndexDb: (indexType, tableName, indexName) =>
        recording(store.getIndexDb(indexType, tableName, indexName), indexKeyPrefix(indexType, tableName, indexName)),
    },
    commit: async () => {
      if (operations.length) await commitBatch(store, operations.splice(0));
    },
  };
}

/** abstract-level's write primitives, each given the write options (abstract-level 3). */
interface WritePrimitives {
  _put(key: unknown, value: unknown, options: object): Promise<void>;
  _del(key: unknown, options: object): Promise<void>;
  _batch(operations: unknown[], options: object): Promise<void>;
}

/**
 * Every write of `store` (puts, deletes, batches, whoever makes them) is fsynced before it is
 * acknowledged: LevelDB's `sync: true`. dynalite's callback wrapper drops write options, so the
 * option is added underneath it, at abstract-level's per-database write primitives.
 */
export function syncEveryWrite(store: Store): void {
  const level = store.db as unknown as WritePrimitives;
  const own = Object.getPrototypeOf(level) as WritePrimitives; // the database class's primitives
  level._put = (key, value, options) => own._put.call(level, key, value, { ...options, sync: true });
  level._del = (key, options) => own._del.call(level, key, { ...options, sync: true });
  level._batch = (operations, options) => own._batch.call(level, operations, { ...options, sync: true });
}
