/**
 * The backoff of the product's own retry loops (unprocessed BatchGetItem keys, unprocessed
 * BatchWriteItem items): exponential from 25 ms, capped at 1 s, with half of it jittered so
 * concurrent callers do not retry in step. The SDK's own retries (throttling, 5xx) are separate.
 */
export function backoffMs(round: number): number {
  const base = Math.min(1000, 25 * 2 ** (round - 1));
  return base / 2 + Math.random() * (base / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
