/**
 * Contention is UNAVAILABLE (reason `contention`, retryable), never the engine's cancellation nor
 * CONFLICT: writeTransaction's conflict retries are bounded by time (src/model/guards.ts), and an
 * optimistic-concurrency loop whose attempts run out says so with the same code. A stub table
 * that cancels every transaction stands for writers that always come first.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Table } from '../../src/dynamo/table';
import { conflictRetry } from '../../src/dynamo/backoff';
import {
  CONFLICT_BUDGET_MS,
  DEFAULT_WRITE_SHARDS,
  CONFLICT_MIN_ATTEMPTS,
  DomainError,
  ErrorCode,
  putProduct,
  SYSTEM_ACTOR,
} from '../../src/model';

const PRODUCT = { sku: 'HOT-1', name: 'Hot', priceCents: 100, active: true };

/** A cancellation as the SDK throws it: one reason per action. */
function cancellation(codes: string[], item?: Record<string, unknown>) {
  return Object.assign(new Error(`Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code, i) => ({ Code, ...(i === 0 && item ? { Item: marshall(item) } : {}) })),
  });
}

/** A table whose every TransactWriteItems is cancelled by `fail` (after `delayMs`). */
function cancellingTable(fail: () => Error, delayMs = 0) {
  const sent: number[] = [];
  const table = {
    writeShards: DEFAULT_WRITE_SHARDS,
    async transactWrite() {
      sent.push(Date.now());
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      throw fail();
    },
  } as unknown as Table;
  return { table, sent };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('contention', () => {
  it('writeTransaction retries TransactionConflict within its time budget, then UNAVAILABLE contention', async () => {
    const { table, sent } = cancellingTable(() => cancellation(['TransactionConflict', 'None']));
    const error = await refusal(putProduct(table, PRODUCT, SYSTEM_ACTOR));
    expect(error).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'contention', retryAfterSeconds: 1 });
    expect(error.message).not.toMatch(/Transaction cancelled|TransactionConflict/);
    expect((error as { cause?: Error }).cause?.name).toBe('TransactionCanceledException'); // for the log line
    expect(sent.length).toBeGreaterThanOrEqual(CONFLICT_MIN_ATTEMPTS);
    // Full jitter: the waits between attempts are not one fixed schedule.
    const waits = sent.slice(1).map((at, i) => at - sent[i]!);
    expect(new Set(waits).size).toBeGreaterThan(1);
  });

  it('the retry policy waits with full jitter and never starts a wait past its budget (a virtual clock)', async () => {
    for (let run = 0; run < 50; run++) {
      let time = 0;
      const waits: number[] = [];
      const clock = { now: () => time, sleep: async (ms: number) => void (waits.push(ms), (time += ms)) };
      const retry = conflictRetry({ clock });
      while (await retry.wait());
      expect(waits.length).toBeGreaterThanOrEqual(CONFLICT_MIN_ATTEMPTS - 1);
      expect(time).toBeLessThanOrEqual(CONFLICT_BUDGET_MS);
      expect(waits.every((ms) => ms >= 0 && ms <= 400)).toBe(true);
    }
  });

  it('makes at least the minimum attempts however slow each one is', async () => {
    // Each attempt takes more than half the budget: time alone would allow 2.
    const { table, sent } = cancellingTable(() => cancellation(['TransactionConflict', 'None']), CONFLICT_BUDGET_MS * 0.55);
    const error = await refusal(putProduct(table, PRODUCT, SYSTEM_ACTOR));
    expect(error.reason).toBe('contention');
    expect(sent).toHaveLength(CONFLICT_MIN_ATTEMPTS);
  }, 10_000);

  it('an optimistic-concurrency loop that never catches up is UNAVAILABLE contention, not CONFLICT', async () => {
    // Every attempt finds the product moved on by another writer (its condition fails, ALL_OLD returned).
    let sequence = 1;
    const { table, sent } = cancellingTable(() =>
      cancellation(['ConditionalCheckFailed', 'None'], { PK: 'CATALOG', SK: `PRODUCT#${PRODUCT.sku}`, eventSeq: sequence++ }),
    );
    const error = await refusal(putProduct(table, PRODUCT, SYSTEM_ACTOR));
    expect(error).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'contention', retryAfterSeconds: 1 });
    expect(error.message).toBe(`product ${PRODUCT.sku} is being changed concurrently; try again`);
    expect(sent).toHaveLength(5); // WRITE_ATTEMPTS (src/model/guards.ts), no time budget spent
  });
});
