/**
 * A token bucket for migrations: `perSecond` tokens a second, at most `burst` saved up. The runner
 * takes one token per scanned item before it rewrites a page, and the scan asks for its next page
 * only after that, so a run reads (and writes, since it only rewrites items it scanned) at most
 * `perSecond` items a second on average, whatever the number of segments.
 *
 * `take(n)` may ask for more than `burst` (a whole page): the bucket goes into debt and the caller
 * waits until it is paid off, so a large request is never starved and the long-run rate holds.
 * The clock is injectable, so the limiter is tested by counting, not by waiting.
 */

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface Limiter {
  /** Resolves once `n` tokens are granted. */
  take(n: number): Promise<void>;
}

/** No limit: every request is granted at once. */
export const unlimited: Limiter = { take: async () => {} };

export class RateLimiter implements Limiter {
  private readonly clock: Clock;
  private tokens: number;
  private last: number;
  readonly burst: number;

  constructor(
    readonly perSecond: number,
    options: { burst?: number; clock?: Clock } = {},
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new Error(`a rate must be a positive number of items a second, got ${perSecond}`);
    this.clock = options.clock ?? realClock;
    this.burst = options.burst ?? perSecond;
    if (!(this.burst > 0)) throw new Error(`a burst must be positive, got ${this.burst}`);
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  async take(n: number): Promise<void> {
    if (n <= 0) return;
    this.refill();
    this.tokens -= n;
    if (this.tokens >= 0) return;
    // In debt: wait until the refill has paid it back. Later callers see the deeper debt and
    // wait longer, so concurrent segments share the rate.
    await this.clock.sleep((-this.tokens / this.perSecond) * 1000);
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }
}

/** A limiter for `--rate`: unlimited when the rate is absent. */
export function limiterFor(itemsPerSecond: number | undefined, clock?: Clock): Limiter {
  return itemsPerSecond === undefined ? unlimited : new RateLimiter(itemsPerSecond, clock ? { clock } : {});
}
