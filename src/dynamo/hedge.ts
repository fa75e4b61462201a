/**
 * Hedged reads ("The Tail at Scale", Dean & Barroso, CACM 2013): when an idempotent read has not
 * answered after a high percentile of its operation's recent latencies, send one copy, take the
 * first complete answer and abort the other.
 *
 * - The delay is adaptive, per operation (`GetItem`, `Query`, `BatchGetItem`): the `percentile`
 *   (default p95) of the last `window` latencies of that operation, never below `floorMs`. Until an
 *   operation has `minSamples` latencies the process does not know what slow is, so it does not
 *   hedge it at all (the cold start: a new process, or a Lambda container's first requests).
 * - A budget caps hedges to a share of requests (`budget`, default 5%): a token bucket that every
 *   request fills by `budget` of a token and every hedge empties by one, holding at most `burst`
 *   tokens (full at start). A slow DynamoDB is therefore hit at most `budget` harder, plus a burst.
 * - The race: the first copy that answers wins; the other is aborted (`AbortController`, passed to
 *   the SDK's `abortSignal`, which destroys its HTTP request). A copy that fails does not end the
 *   race while the other may still answer; when both fail the first copy's error is thrown.
 *
 * The latency recorded is the first copy's own: its answer time, or when it lost, the time until it
 * was aborted (a lower bound, and above the delay by construction). A `Hedger` is shared by every
 * `Table` of a process (`withMeter` keeps it) and by the benchmark's multi-table baseline; writes
 * never reach it (src/dynamo/table.ts sends them directly).
 */

/** Which copy of a hedged request answered first. */
export type HedgeWinner = 'primary' | 'hedge';

export interface HedgeSettings {
  /** Percentile of an operation's recent latencies after which a copy is sent, 50..99.9 (default 95). */
  percentile: number;
  /** The delay is never shorter than this, ms (default 5). */
  floorMs: number;
  /** Share of requests that may be hedged, 0..1: the token bucket's refill per request (default 0.05). */
  budget: number;
  /** Hedges the bucket holds at most, the largest burst; a new Hedger starts full (default 10). */
  burst: number;
  /** Latencies kept per operation, the window the percentile is taken over (default 512). */
  window: number;
  /** An operation with fewer latencies than this is not hedged: the cold start (default 20). */
  minSamples: number;
  /** The percentile is recomputed after this many new latencies (default 16; 1 in unit tests). */
  recomputeEvery: number;
}

export const DEFAULT_HEDGE_SETTINGS: Readonly<HedgeSettings> = Object.freeze({
  percentile: 95,
  floorMs: 5,
  budget: 0.05,
  burst: 10,
  window: 512,
  minSamples: 20,
  recomputeEvery: 16,
});

/** What happened to one request: undefined when no copy was sent. */
export interface HedgeReport {
  winner: HedgeWinner;
}

export interface HedgeStats {
  /** Requests offered to the hedger. */
  requests: number;
  /** Copies sent. */
  hedges: number;
  /** Races the copy won. */
  wonByHedge: number;
  /** Copies the budget refused (the delay had passed, no token was left). */
  denied: number;
  /** Losers whose request was aborted (their promise rejected with `AbortError`). */
  abortedLosers: number;
}

/** The last `size` latencies of one operation and their percentile, recomputed every `recomputeEvery` samples. */
export class LatencyWindow {
  private readonly samples: Float64Array;
  private count = 0;
  private next = 0;
  private fresh = 0;
  private cached: number | undefined;

  constructor(
    size: number,
    private readonly percentile: number,
    private readonly recomputeEvery = 16,
  ) {
    this.samples = new Float64Array(Math.max(1, size));
  }

  record(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count += 1;
    if (++this.fresh >= this.recomputeEvery) this.cached = undefined;
  }

  /** Latencies held (at most the window's size). */
  get size(): number {
    return this.count;
  }

  /** The nearest-rank percentile of the latencies held; undefined when empty. */
  value(): number | undefined {
    if (this.count === 0) return undefined;
    if (this.cached === undefined) {
      const sorted = this.samples.slice(0, this.count).sort();
      const rank = Math.ceil((this.percentile / 100) * this.count);
      this.cached = sorted[Math.min(this.count, Math.max(1, rank)) - 1] as number;
      this.fresh = 0;
    }
    return this.cached;
  }
}

/**
 * The hedging budget: a token bucket in millionths of a hedge (integers, so counts are exact), filled
 * by `share` for every request and emptied by one whole hedge for every copy sent.
 */
export class HedgeBudget {
  private static readonly UNIT = 1_000_000;
  private readonly perRequest: number;
  private readonly capacity: number;
  private level: number;

  constructor(share: number, burst: number) {
    this.perRequest = Math.round(share * HedgeBudget.UNIT);
    this.capacity = Math.max(1, Math.floor(burst)) * HedgeBudget.UNIT;
    this.level = this.perRequest > 0 ? this.capacity : 0; // a budget of 0 allows no hedge at all, not a first burst
  }

  /** A request was sent: it earns `share` of a hedge. */
  deposit(): void {
    this.level = Math.min(this.capacity, this.level + this.perRequest);
  }

  /** Takes one hedge when the bucket holds one. */
  take(): boolean {
    if (this.level < HedgeBudget.UNIT) return false;
    this.level -= HedgeBudget.UNIT;
    return true;
  }

  /** Whole hedges available now. */
  get available(): number {
    return Math.floor(this.level / HedgeBudget.UNIT);
  }
}

export class Hedger {
  readonly settings: Readonly<HedgeSettings>;
  private readonly windows = new Map<string, LatencyWindow>();
  private budget: HedgeBudget;
  private readonly counts: HedgeStats = { requests: 0, hedges: 0, wonByHedge: 0, denied: 0, abortedLosers: 0 };

  constructor(settings: Partial<HedgeSettings> = {}) {
    this.settings = Object.freeze(checkSettings({ ...DEFAULT_HEDGE_SETTINGS, ...settings }));
    this.budget = new HedgeBudget(this.settings.budget, this.settings.burst);
  }

  /** How long a request of `operation` waits before its copy is sent; undefined while it is cold. */
  delayFor(operation: string): number | undefined {
    const window = this.windows.get(operation);
    if (!window || window.size < this.settings.minSamples) return undefined;
    return Math.max(this.settings.floorMs, window.value() ?? 0);
  }

  stats(): HedgeStats {
    return { ...this.counts };
  }

  /** Forgets every latency and count and refills the budget, as a new process starts (the benchmark does so between runs). */
  reset(): void {
    this.windows.clear();
    this.budget = new HedgeBudget(this.settings.budget, this.settings.burst);
    for (const name of Object.keys(this.counts) as Array<keyof HedgeStats>) this.counts[name] = 0;
  }

  /**
   * Sends a read through `send` (called once, or twice with a hedge), each call with its own abort
   * signal. Resolves to the first answer and whether a copy was sent and which one won.
   */
  async run<T>(operation: string, send: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; hedge: HedgeReport | undefined }> {
    const window = this.windowOf(operation);
    const delay = this.delayFor(operation);
    this.counts.requests += 1;
    this.budget.deposit();
    const startedAt = performance.now();
    const primaryAbort = new AbortController();
    const primary = send(primaryAbort.signal);
    if (delay === undefined) {
      const value = await primary;
      window.record(performance.now() - startedAt);
      return { value, hedge: undefined };
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      let hedged = false;
      let primaryFailed: { error: unknown } | undefined;
      let hedgeFailed = false;
      let hedgeAbort: AbortController | undefined;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
      };
      const lost = (error: unknown) => {
        if ((error as { name?: unknown } | null)?.name === 'AbortError') this.counts.abortedLosers += 1;
      };
      primary.then(
        (value) => {
          window.record(performance.now() - startedAt);
          if (settled) return;
          settle();
          hedgeAbort?.abort();
          resolve({ value, hedge: hedged ? { winner: 'primary' } : undefined });
        },
        (error: unknown) => {
          if (settled) {
            // Aborted because the copy won: it was at least this slow.
            window.record(performance.now() - startedAt);
            lost(error);
            return;
          }
          primaryFailed = { error };
          if (!hedged || hedgeFailed) {
            settle();
            reject(error);
          }
        },
      );
      const timer = setTimeout(() => {
        if (settled || primaryFailed) return;
        if (!this.budget.take()) {
          this.counts.denied += 1;
          return;
        }
        hedged = true;
        this.counts.hedges += 1;
        const abort = new AbortController();
        hedgeAbort = abort;
        let copy: Promise<T>;
        try {
          copy = send(abort.signal);
        } catch (error) {
          copy = Promise.reject(error);
        }
        copy.then(
          (value) => {
            if (settled) return;
            settle();
            this.counts.wonByHedge += 1;
            primaryAbort.abort();
            resolve({ value, hedge: { winner: 'hedge' } });
          },
          (error: unknown) => {
            if (settled) {
              lost(error);
              return;
            }
            hedgeFailed = true;
            if (primaryFailed) {
              settle();
              reject(primaryFailed.error);
            }
          },
        );
      }, delay);
    });
  }

  private windowOf(operation: string): LatencyWindow {
    let window = this.windows.get(operation);
    if (!window) {
      window = new LatencyWindow(this.settings.window, this.settings.percentile, this.settings.recomputeEvery);
      this.windows.set(operation, window);
    }
    return window;
  }
}

function checkSettings(settings: HedgeSettings): HedgeSettings {
  const fail = (what: string) => {
    throw new Error(`hedging: ${what}`);
  };
  if (!(settings.percentile >= 50 && settings.percentile < 100)) fail(`percentile must be 50..99.9, got ${settings.percentile}`);
  if (!(settings.floorMs >= 0)) fail(`floorMs must be ≥ 0, got ${settings.floorMs}`);
  if (!(settings.budget >= 0 && settings.budget <= 1)) fail(`budget must be a share 0..1, got ${settings.budget}`);
  if (!(settings.burst >= 1)) fail(`burst must be ≥ 1, got ${settings.burst}`);
  if (!(Number.isInteger(settings.window) && settings.window >= 1)) fail(`window must be an integer ≥ 1, got ${settings.window}`);
  if (!(Number.isInteger(settings.minSamples) && settings.minSamples >= 0))
    fail(`minSamples must be an integer ≥ 0, got ${settings.minSamples}`);
  if (!(Number.isInteger(settings.recomputeEvery) && settings.recomputeEvery >= 1)) fail(`recomputeEvery must be ≥ 1`);
  return settings;
}
