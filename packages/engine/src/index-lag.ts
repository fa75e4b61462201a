/**
 * Global secondary index propagation lag, as Amazon DynamoDB has it (opt-in: `gsiLagMs`).
 *
 * On DynamoDB a write is acknowledged once the base table has it; its GSI entries are propagated
 * asynchronously, so a Query or Scan on a GSI (always eventually consistent: ConsistentRead is
 * refused on a GSI) may miss a write, or still see an entry the write removed, for a short while.
 *
 * How: every commit (single-item writes in durable-writes.ts, transactions in transact-write.ts)
 * goes through `commitBatch`. Without lag it is one LevelDB batch, as before. With lag, the
 * batch's GSI operations (puts and deletes of `index-global~…` keys) are held back: the item, its
 * LSI entries and everything else are written at once; each GSI operation is queued with a seeded
 * random delay in [0, gsiLagMs] and applied by a timer, under the engine's exclusive lock.
 *
 * Correctness after the delay: dynalite computes index entries from the old and new item, never
 * by reading the index, so applying the held-back operations later yields exactly the index an
 * immediate write would have. Operations on one index key are applied in the order they were
 * committed: an operation is never due before an earlier one on the same key (its due time is at
 * least that one's), and due operations are applied in (due time, commit order). DeleteTable drops
 * its table's pending operations, an index's deletion that index's (index-updates.ts); `drain`
 * (engine close) applies everything still pending.
 *
 * Known gap: pending operations live in memory. With `--path`, a crash loses GSI writes still
 * lagging (at most gsiLagMs old), leaving the index behind its table; a clean close applies them.
 */
import type { BatchOperation, Store } from './dynalite-internals';

export interface IndexLagOptions {
  /** Upper bound of each GSI operation's delay, in ms (> 0). */
  maxMs: number;
  /** Seed of the delay sequence: the same writes in the same order get the same delays. */
  seed: number;
  /** Runs `work` holding the engine's lock exclusively. */
  exclusively(work: () => Promise<void>): Promise<void>;
}

interface Pending {
  operation: BatchOperation;
  due: number;
  seq: number;
}

const GLOBAL_INDEX_PREFIX = 'index-global~';
const lags = new WeakMap<Store, IndexLag>();
/** What kind of write a commit is. */
export interface Commit {
  /** A TransactWriteItems (read-committed against BatchGetItem, Query and Scan), not a single-item write or batch. */
  transaction: boolean;
}

/** Sees a commit's operations before they are written; may return more operations for the same batch (streams.ts's records). */
type CommitObserver = (operations: BatchOperation[], commit: Commit) => Promise<BatchOperation[] | void>;
const commitObservers = new WeakMap<Store, CommitObserver[]>();

/** Has `observe` see every commit's operations before they are written (stale-reads.ts, streams.ts), in the order attached. */
export function observeCommits(store: Store, observe: CommitObserver): void {
  commitObservers.set(store, [...(commitObservers.get(store) ?? []), observe]);
}

/**
 * Writes a commit's LevelDB operations: one batch (with whatever its observers add, e.g. stream
 * records, so both are written or neither), minus the GSI operations an `IndexLag` attached to
 * `store` holds back.
 */
export async function commitBatch(store: Store, operations: BatchOperation[], commit: Commit = { transaction: false }): Promise<void> {
  const added: BatchOperation[] = [];
  for (const observe of commitObservers.get(store) ?? []) added.push(...((await observe(operations, commit)) ?? []));
  const lag = lags.get(store);
  const now = [...(lag ? operations.filter((op) => !op.key.startsWith(GLOBAL_INDEX_PREFIX)) : operations), ...added];
  if (now.length) await store.db.batch(now);
  if (lag && now.length - added.length < operations.length) lag.enqueue(operations.filter((op) => op.key.startsWith(GLOBAL_INDEX_PREFIX)));
}

/** A seeded PRNG (mulberry32): uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class IndexLag {
  private pending: Pending[] = [];
  /** The latest due time queued per index key (so a later operation is never due earlier). */
  private readonly lastDue = new Map<string, number>();
  private readonly random: () => number;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  private applying = 0;
  private settledWaiters: (() => void)[] = [];
  private drained = false;

  private constructor(
    private readonly store: Store,
    private readonly options: IndexLagOptions,
  ) {
    this.random = seededRandom(options.seed);
  }

  /** Holds back the GSI operations of every `commitBatch` on `store`. */
  static attach(store: Store, options: IndexLagOptions): IndexLag {
    const lag = new IndexLag(store, options);
    lags.set(store, lag);
    return lag;
  }

  /** Resolves once no GSI operation is pending (the indexes show every acknowledged write). */
  settled(): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** GSI operations not yet applied. */
  get pendingCount(): number {
    return this.pending.length;
  }

  enqueue(operations: BatchOperation[]): void {
    if (this.drained) return;
    const now = Date.now();
    let earliest = Infinity;
    for (const operation of operations) {
      const delay = Math.floor(this.random() * (this.options.maxMs + 1));
      const due = Math.max(now + delay, this.lastDue.get(operation.key) ?? 0);
      this.lastDue.set(operation.key, due);
      this.pending.push({ operation, due, seq: this.seq++ });
      earliest = Math.min(earliest, due);
    }
    this.schedule(earliest);
  }

  /** Drops the pending operations of `tableName`'s indexes (the table is being deleted). */
  forgetTable(tableName: string): void {
    this.forget(`${GLOBAL_INDEX_PREFIX}${tableName}~`);
  }

  /** Drops the pending operations of one index (it is being deleted: index-updates.ts). */
  forgetIndex(tableName: string, indexName: string): void {
    this.forget(`${GLOBAL_INDEX_PREFIX}${tableName}~${indexName}~`);
  }

  private forget(prefix: string): void {
    this.pending = this.pending.filter((p) => !p.operation.key.startsWith(prefix));
    for (const key of this.lastDue.keys()) if (key.startsWith(prefix)) this.lastDue.delete(key);
    this.notifyIfSettled();
  }

  /** Applies everything pending now and stops; the caller holds the engine's lock exclusively. */
  async drain(): Promise<void> {
    this.drained = true;
    clearTimeout(this.timer);
    await this.applyDue(Infinity);
  }

  /** Sets the timer for the earliest pending operation (`next`, when the caller knows it: O(1)). */
  private schedule(next = this.pending.reduce((min, p) => Math.min(min, p.due), Infinity)): void {
    if (this.drained || !this.pending.length) return;
    if (this.timer && next >= this.timerDue) return;
    clearTimeout(this.timer);
    this.timerDue = next;
    this.timer = setTimeout(() => this.tick(), Math.max(0, next - Date.now()));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    this.applying++;
    this.options
      .exclusively(() => this.applyDue(Date.now()))
      .catch((err: unknown) => console.error('[engine] applying lagged index writes failed:', err))
      .finally(() => {
        this.applying--;
        this.schedule();
        this.notifyIfSettled();
      });
  }

  private async applyDue(now: number): Promise<void> {
    const due = this.pending.filter((p) => p.due <= now).sort((a, b) => a.due - b.due || a.seq - b.seq);
    if (!due.length) return;
    this.pending = this.pending.filter((p) => p.due > now);
    for (const { operation, due: at } of due) if (this.lastDue.get(operation.key) === at) this.lastDue.delete(operation.key);
    // One batch: LevelDB applies its operations in order, so a later operation on a key wins.
    await this.store.db.batch(due.map((p) => p.operation));
  }

  private isSettled(): boolean {
    return this.pending.length === 0 && this.applying === 0;
  }

  private notifyIfSettled(): void {
    if (!this.isSettled()) return;
    const waiters = this.settledWaiters.splice(0);
    for (const resolve of waiters) resolve();
  }
}
