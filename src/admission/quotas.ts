/**
 * Token buckets: one per principal and kind (reads, writes), in this process's memory.
 *
 * A bucket holds at most one minute's worth (`perMinute`) and refills continuously at
 * `perMinute / 60` a second, so a client may spend a minute's quota in a burst, then waits. A
 * request takes its whole amount at once or nothing: refused, it learns in how many whole seconds
 * enough will have refilled (`Retry-After`). An amount larger than the bucket can never pass.
 *
 * Memory is bounded: a full bucket is the same as no bucket, so full ones are dropped when the
 * map reaches `maxKeys`; if that is not enough the least recently used are dropped (which only
 * ever forgives: a dropped caller starts again with a full bucket).
 *
 * Buckets are per process: N instances (or N warm Lambda containers) give a caller up to N times
 * the quota. README.md ("Security: limits and production mode") says how that is meant.
 */
export interface Take {
  ok: boolean;
  /** Whole seconds until the amount will be there; undefined when it can never be. */
  retryAfterSeconds?: number | undefined;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    private readonly options: { maxKeys?: number; now?: () => number } = {},
  ) {
    if (!(perMinute > 0)) throw new Error(`a quota must be positive, got ${perMinute}`);
    this.perMs = perMinute / 60_000;
  }

  /** How much a bucket holds (one minute's worth). */
  get capacity(): number {
    return this.perMinute;
  }

  /** Whether `amount` may be taken from `key`'s bucket now, and if not, when. Takes nothing. */
  check(key: string, amount: number): Take {
    if (amount <= 0) return { ok: true };
    if (amount > this.capacity) return { ok: false, retryAfterSeconds: undefined };
    const tokens = this.level(key, this.now());
    if (tokens >= amount) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((amount - tokens) / this.perMs / 1000)) };
  }

  /** Takes `amount` from `key`'s bucket (the caller checked first). */
  take(key: string, amount: number): void {
    if (amount <= 0) return;
    const now = this.now();
    const tokens = this.level(key, now) - amount;
    this.buckets.delete(key); // re-inserted last: the map's order is least recently used first
    if (this.buckets.size >= this.maxKeys) this.evict(now);
    this.buckets.set(key, { tokens, at: now });
  }

  /** Buckets held (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  private level(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.capacity;
    return Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
  }

  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.capacity) this.buckets.delete(key);
    }
    // Still full of busy callers: forgive the least recently seen tenth.
    let excess = this.buckets.size - Math.floor(this.maxKeys * 0.9);
    for (const key of this.buckets.keys()) {
      if (excess-- <= 0) break;
      this.buckets.delete(key);
    }
  }

  private get maxKeys(): number {
    return this.options.maxKeys ?? 10_000;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** The read and write buckets of one server. */
export interface Quotas {
  reads: TokenBuckets;
  writes: TokenBuckets;
}

export function createQuotas(
  settings: { readsPerMinute: number; writesPerMinute: number },
  options: { maxKeys?: number; now?: () => number } = {},
): Quotas {
  return { reads: new TokenBuckets(settings.readsPerMinute, options), writes: new TokenBuckets(settings.writesPerMinute, options) };
}
