/**
 * Eventually consistent reads of the base table, as DynamoDB has them (opt-in:
 * `consistency: 'eventual'`).
 *
 * On DynamoDB a read without `ConsistentRead` may be answered by a replica that has not had the
 * latest write yet: it can return the item's previous version (or nothing, for an item just
 * created; or the item, for one just deleted) for a short while after a write.
 *
 * How: every commit (index-lag.ts's `commitBatch`) first tells this module which items it writes;
 * each item's version before the write is kept, with a seeded random window of 0..staleReadMs.
 * During the window, GetItem and BatchGetItem without ConsistentRead read that previous version
 * (several writes inside one window keep the oldest, as a lagging replica would); with
 * ConsistentRead they read the item as it is. `settled()` resolves once every window has passed.
 *
 * Not covered (yet): Query and Scan stay strongly consistent (substituting versions inside
 * dynalite's iterator streams would need its sort order and paging; see README).
 */
import type { BatchOperation, Callback, Item, Store, SubDb } from './dynalite-internals';
import { observeCommits, seededRandom } from './index-lag';
import { itemKeyPrefix } from './staging-store';

export interface StaleReadOptions {
  /** Upper bound of each write's stale window, in ms (> 0). */
  maxMs: number;
  /** Seed of the windows. */
  seed: number;
}

interface Previous {
  item: Item | undefined;
  until: number;
}

const ITEM_KEY = /^item-/;

export class StaleReads {
  /** Full LevelDB item key → its version before the latest writes, while the window lasts. */
  private readonly previous = new Map<string, Previous>();
  private readonly random: () => number;
  private lastUntil = 0;

  private constructor(
    private readonly store: Store,
    private readonly options: StaleReadOptions,
  ) {
    this.random = seededRandom(options.seed);
  }

  static attach(store: Store, options: StaleReadOptions): StaleReads {
    const stale = new StaleReads(store, options);
    observeCommits(store, (operations) => stale.remember(operations));
    return stale;
  }

  /**
   * The store an eventually consistent GetItem/BatchGetItem reads: tables in `consistent`
   * (ConsistentRead) are read as they are, the others may answer an item's previous version.
   */
  readerStore(consistent: ReadonlySet<string>): Store {
    return {
      ...this.store,
      getItemDb: (tableName) => {
        const real = this.store.getItemDb(tableName);
        if (consistent.has(tableName)) return real;
        const prefix = itemKeyPrefix(tableName);
        const itemDb: SubDb = {
          lock: (key, fn) => real.lock(key, fn),
          put: (key, value, cb) => real.put(key, value, cb),
          del: (key, cb) => real.del(key, cb),
          get: (key: string, cb: Callback<unknown>) => {
            const stale = this.previous.get(prefix + key);
            if (stale && stale.until > Date.now()) setImmediate(cb, null, stale.item && structuredClone(stale.item));
            else real.get(key, cb);
          },
        };
        return itemDb;
      },
    };
  }

  /** Resolves once no read can be stale any more (every window has passed). */
  async settled(): Promise<void> {
    for (let wait = this.lastUntil - Date.now(); wait > 0; wait = this.lastUntil - Date.now()) {
      await new Promise((resolve) => setTimeout(resolve, wait + 1));
    }
  }

  private async remember(operations: BatchOperation[]): Promise<void> {
    const now = Date.now();
    if (this.previous.size > 1000) for (const [key, entry] of this.previous) if (entry.until <= now) this.previous.delete(key);
    for (const { key } of operations) {
      if (!ITEM_KEY.test(key)) continue;
      const until = now + Math.floor(this.random() * (this.options.maxMs + 1));
      this.lastUntil = Math.max(this.lastUntil, until);
      const current = this.previous.get(key);
      if (current && current.until > now) {
        current.until = Math.max(current.until, until); // a replica that missed one write missed the next
        continue;
      }
      const item = (await this.store.db.get(key).catch(notFoundAsUndefined)) as Item | undefined;
      this.previous.set(key, { item: item ?? undefined, until });
    }
  }
}

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof Error && (err.name === 'NotFoundError' || (err as { code?: string }).code === 'LEVEL_NOT_FOUND')) return undefined;
  throw err;
}
