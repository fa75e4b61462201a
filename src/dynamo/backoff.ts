/**
 * The backoff of the product's own retry loops (unprocessed BatchGetItem keys, unprocessed
 * BatchWriteItem items): exponential from 25 ms, capped at 1 s, with half of it jittered so
 * concurrent callers do not retry in step. The SDK's own retries (throttling, 5xx) are separate.
 */
export function backoffMs(round: number): number {
  const base = Math.min(1000, 25 * 2 ** (round - 1));
  return base / 2 + Math.random() * (base / 2);
}

/**
 * Full jitter (uniform in [0, min(capMs, baseMs × 2^(round − 1))]): callers that collided on the
 * same item spread out at once instead of colliding again in step (writeTransaction's conflicts).
 */
export function fullJitterMs(round: number, baseMs = 25, capMs = 400): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** (round - 1));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How long a write keeps sending a transaction that conflicts with others, from its first attempt
 * (ms): a retry is not started past it, so a caller waits about this plus one request. At least
 * `CONFLICT_MIN_ATTEMPTS` attempts are made however slow each is.
 */
export const CONFLICT_BUDGET_MS = 1_500;
export const CONFLICT_MIN_ATTEMPTS = 3;

/**
 * The retry policy of transaction conflicts (writeTransaction, placeOrder): bounded by time, with
 * full jitter (`fullJitterMs`). Made at the first attempt; `wait()` after each conflicted one
 * sleeps and says true while the budget lasts, false once the next wait would pass it (the caller
 * then gives up with the retryable UNAVAILABLE).
 */
export function conflictRetry(options: { budgetMs?: number; clock?: { now(): number; sleep(ms: number): Promise<void> } } = {}): {
  wait(): Promise<boolean>;
} {
  const budgetMs = options.budgetMs ?? CONFLICT_BUDGET_MS;
  const clock = options.clock ?? { now: Date.now, sleep };
  const started = clock.now();
  let attempt = 0;
  return {
    async wait() {
      attempt++;
      const ms = fullJitterMs(attempt);
      if (attempt >= CONFLICT_MIN_ATTEMPTS && clock.now() - started + ms > budgetMs) return false;
      await clock.sleep(ms);
      return true;
    },
  };
}
