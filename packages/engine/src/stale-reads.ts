/**
 * Reads that see an item's previous version, as DynamoDB's reads may (opt-in, both seeded):
 *
 * - **Eventually consistent reads** (`staleMs`): a GetItem, BatchGetItem, Query or Scan of the
 *   table without `ConsistentRead` may be answered by a replica that has not had the latest write
 *   yet: the item's previous version (or nothing, for an item just created; or the item, for one
 *   just deleted) for a random 0..staleMs after each write. Several writes inside one window keep
 *   the oldest version, as a lagging replica would. Inside its window each read of the item is
 *   stale with probability `staleChance` (drawn per read and item: 1, every read is stale, for
 *   tests that must meet every stale read their code could; 1/3 in the FAITHFUL profile, Amazon's
 *   case where a write acknowledged by two of three replicas is read from the third).
 * - **Read-committed transactions** (`commitSpanMs`): DynamoDB isolates a TransactWriteItems from
 *   GetItem and TransactGetItems (serializable) but only read-committed from BatchGetItem, Query and
 *   Scan, which may see some of a transaction's items and not others while it commits. Here each
 *   item of a transaction turns visible to those reads, even with ConsistentRead, at a random
 *   instant 0..commitSpanMs after the commit, and the transaction answers once all are visible
 *   (the engine waits for `takeCommitVisibleAt()` before answering, outside its lock).
 *
 * How: every commit (index-lag.ts's `commitBatch`) first tells this module which items it writes;
 * each item's version before the write is kept while a window lasts. A read gets a `readerStore`
 * fixed at one instant, with a view per table: 'eventual' sees previous versions within their
 * stale window, 'committed' only within a transaction's commit span, 'serializable' never. In a
 * Query or Scan the previous versions are merged into dynalite's sorted stream (stale-streams.ts).
 * `settled()` resolves once every window has passed. GSIs are not covered here: their lag is
 * index-lag.ts's.
 */
import type { BatchOperation, Callback, Item, Store, SubDb, TableDescription } from './dynalite-internals';
import { observeCommits, seededRandom } from './index-lag';
import { itemKeyPrefix } from './staging-store';
import { withPreviousVersions, type PreviousVersion } from './stale-streams';

export interface StaleReadOptions {
  /** Upper bound of each write's stale window for eventually consistent reads, in ms (0: none). */
  staleMs: number;
  /** Probability that an eventually consistent read inside an item's window sees its previous version (0..1). */
  staleChance: number;
  /** Upper bound of the instant each item of a transaction turns visible to BatchGetItem/Query/Scan, in ms (0: at once). */
  commitSpanMs: number;
  /** Seed of the windows. */
  seed: number;
}

/** What a read of one table may see: previous versions in their stale window, in a commit span, or never. */
export type ReadView = 'eventual' | 'committed' | 'serializable';

interface Previous {
  /** Eventually consistent reads see this version (the oldest a replica may still have) until `staleUntil`. */
  staleItem: Item | undefined;
  staleUntil: number;
  /** Read-committed reads (BatchGetItem, Query, Scan) see the version before a committing transaction until `committingUntil`. */
  committedItem: Item | undefined;
  committingUntil: number;
}

const ITEM_KEY = /^item-/;

export class StaleReads {
  /** Full LevelDB item key → its version before the latest writes, while a window lasts. */
  private readonly previous = new Map<string, Previous>();
  private readonly random: () => number;
  /** A draw per eventually consistent read of an item in its window: stale below `staleChance`. */
  private readonly readRandom: () => number;
  private lastUntil = 0;
  private commitVisible = 0;

  private constructor(
    private readonly store: Store,
    private readonly options: StaleReadOptions,
  ) {
    this.random = seededRandom(options.seed);
    this.readRandom = seededRandom(options.seed + 1);
  }

  static attach(store: Store, options: StaleReadOptions): StaleReads {
    const stale = new StaleReads(store, options);
    observeCommits(store, (operations, commit) => stale.remember(operations, commit.transaction));
    return stale;
  }

  /**
   * The store one read runs against, as of now: each table named in `views` is read through its
   * view (tables not named are read as they are); `tables` gives the key schema Query/Scan merging needs.
   */
  readerStore(views: ReadonlyMap<string, ReadView>, tables: ReadonlyMap<string, TableDescription> = new Map()): Store {
    const now = Date.now();
    // What a read sees of an item with a remembered version: that version, or (undefined) the item as it is.
    const seen = (entry: Previous, view: ReadView): { item: Item | undefined } | undefined => {
      if (view === 'eventual' && entry.staleUntil > now && this.readRandom() < this.options.staleChance) return { item: entry.staleItem };
      if (entry.committingUntil > now) return { item: entry.committedItem }; // eventual reads are read-committed too
      return undefined;
    };
    return {
      ...this.store,
      getItemDb: (tableName) => {
        const real = this.store.getItemDb(tableName);
        const view = views.get(tableName) ?? 'serializable';
        if (view === 'serializable') return real;
        const prefix = itemKeyPrefix(tableName);
        const itemDb: SubDb = {
          lock: (key, fn) => real.lock(key, fn),
          put: (key, value, cb) => real.put(key, value, cb),
          del: (key, cb) => real.del(key, cb),
          get: (key: string, cb: Callback<unknown>) => {
            const entry = this.previous.get(prefix + key);
            const version = entry && seen(entry, view);
            if (version) setImmediate(cb, null, version.item && structuredClone(version.item));
            else real.get(key, cb);
          },
          createValueStream: (options) => {
            const table = tables.get(tableName);
            const versions: PreviousVersion[] = [];
            for (const [key, entry] of this.previous) {
              const version = key.startsWith(prefix) ? seen(entry, view) : undefined;
              if (version) versions.push({ key: key.slice(prefix.length), item: version.item });
            }
            if (!real.createValueStream) throw new Error('the item store cannot stream');
            if (!table || !versions.length) return real.createValueStream(options);
            return withPreviousVersions(real.createValueStream, options, versions, table);
          },
        };
        return itemDb;
      },
    };
  }

  /**
   * When the latest transaction's items are all visible to read-committed reads (0 when none was
   * committed since the last call). Call it holding the engine's exclusive lock, after the commit.
   */
  takeCommitVisibleAt(): number {
    const at = this.commitVisible;
    this.commitVisible = 0;
    return at;
  }

  /** Resolves once no read can see a previous version any more (every window has passed). */
  async settled(): Promise<void> {
    for (let wait = this.lastUntil - Date.now(); wait > 0; wait = this.lastUntil - Date.now()) {
      await new Promise((resolve) => setTimeout(resolve, wait + 1));
    }
  }

  private async remember(operations: BatchOperation[], transaction: boolean): Promise<void> {
    const now = Date.now();
    if (this.previous.size > 1000) {
      for (const [key, entry] of this.previous) if (Math.max(entry.staleUntil, entry.committingUntil) <= now) this.previous.delete(key);
    }
    const draw = (maxMs: number) => (maxMs ? now + Math.floor(this.random() * (maxMs + 1)) : now);
    for (const { key } of operations) {
      if (!ITEM_KEY.test(key)) continue;
      const staleUntil = draw(this.options.staleMs);
      const committingUntil = transaction ? draw(this.options.commitSpanMs) : now;
      if (transaction) this.commitVisible = Math.max(this.commitVisible, committingUntil);
      if (staleUntil <= now && committingUntil <= now) continue;
      this.lastUntil = Math.max(this.lastUntil, staleUntil, committingUntil);
      const before = (await this.store.db.get(key).catch(notFoundAsUndefined)) as Item | undefined;
      const entry = this.previous.get(key) ?? { staleItem: undefined, staleUntil: 0, committedItem: undefined, committingUntil: 0 };
      if (entry.staleUntil > now) {
        entry.staleUntil = Math.max(entry.staleUntil, staleUntil); // a replica that missed one write missed the next
      } else {
        entry.staleItem = before ?? undefined;
        entry.staleUntil = staleUntil;
      }
      if (committingUntil > now) {
        entry.committedItem = before ?? undefined;
        entry.committingUntil = committingUntil;
      }
      this.previous.set(key, entry);
    }
  }
}

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof Error && (err.name === 'NotFoundError' || (err as { code?: string }).code === 'LEVEL_NOT_FOUND')) return undefined;
  throw err;
}
