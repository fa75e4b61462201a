/**
 * The backoff of the product's own retry loops (`inRounds` below: unprocessed BatchGetItem keys,
 * unprocessed BatchWriteItem items, failed EventBridge entries): exponential from 25 ms, capped at 1 s, with half of it jittered so
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
 * The one retry loop of the product's batch calls (BatchGetItem's unprocessed keys, BatchWriteItem's
 * unprocessed items, EventBridge's failed entries): round 0 sends everything; each later round waits
 * `backoff(round)` (`backoffMs` unless told) and sends only what the last round left over. It stops
 * once nothing is left or `maxRounds` rounds have been sent, and returns what is still left: the
 * caller decides whether that is an error (a batch read or write never answers in part) or a report
 * (publishing). A thrown `send` ends it at once (the SDK has retried throttling and 5xx already).
 */
export async function inRounds<T>(
  first: readonly T[],
  maxRounds: number,
  send: (pending: readonly T[], round: number) => Promise<readonly T[]>,
  backoff: (round: number) => number = backoffMs,
): Promise<readonly T[]> {
  let pending = first;
  for (let round = 0; pending.length > 0 && round < maxRounds; round++) {
    if (round > 0) await sleep(backoff(round));
    pending = await send(pending, round);
  }
  return pending;
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
