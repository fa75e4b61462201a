/**
 * The meter is bounded: what it keeps and what one request costs do not depend on how many
 * requests came before. A pure test on counts (records held, totals), with the time per
 * begin/end printed as information only, never asserted.
 */
import { describe, expect, it } from 'vitest';
import { Meter } from '../../src/dynamo/meter';

/** `n` requests, each sent after the previous answered (so each opens a wave), in ns per request. */
function drive(meter: Meter, n: number): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) meter.begin(i % 2 ? 'Query' : 'PutItem')({ items: 1, scanned: 2, capacity: 0.5 });
  return Number(process.hrtime.bigint() - started) / n;
}

describe('Meter', () => {
  it('keeps no record without an operation, and its cost per request is flat from 1k to 1M requests', () => {
    drive(Meter.counters(), 200_000); // warm-up, so the figures are the steady state
    const figures: Record<string, number> = {};
    for (const n of [1_000, 1_000_000]) {
      const meter = Meter.counters();
      drive(meter, n);
      // The cost of the next 10k requests, after n.
      figures[n] = drive(meter, 10_000);
      // What it holds after n requests: nothing but its counters.
      expect(meter.retained).toBe(0);
      expect(meter.records()).toHaveLength(0);
      const total = n + 10_000;
      const summary = meter.summary();
      expect(summary.requests).toBe(total);
      expect(summary.waves).toBe(total);
      expect(summary.items).toBe(total);
      expect(summary.read).toBe(total); // the Query half scanned 2 each
      expect(summary.byOperation).toEqual({ PutItem: total / 2, Query: total / 2 });
    }
    console.log(
      `meter (counters): ${figures[1_000]!.toFixed(0)} ns per begin/end after 1k requests, ${figures[1_000_000]!.toFixed(0)} ns after 1M; 0 records kept`,
    );
  });

  it('an operation meter keeps exactly its own records, one per request, and computes waves in O(1)', () => {
    drive(new Meter(), 200_000);
    const figures: Record<string, number> = {};
    for (const n of [1_000, 1_000_000]) {
      const meter = new Meter();
      drive(meter, n);
      figures[n] = drive(meter, 10_000);
      expect(meter.retained).toBe(n + 10_000);
      expect(meter.records().at(-1)!.wave).toBe(n + 10_000);
    }
    console.log(
      `meter (operation records): ${figures[1_000]!.toFixed(0)} ns per begin/end after 1k requests, ${figures[1_000_000]!.toFixed(0)} ns after 1M`,
    );
  });

  it('requests sent together share a wave; one sent after an answer opens the next', () => {
    const meter = new Meter();
    const a = meter.begin('Query');
    const b = meter.begin('BatchGetItem');
    a({ items: 2 });
    const c = meter.begin('GetItem');
    b({ items: 3 });
    c({ items: 1, error: 'ProvisionedThroughputExceededException' });
    expect(meter.records().map((r) => r.wave)).toEqual([1, 1, 2]);
    expect(meter.summary()).toMatchObject({ requests: 3, waves: 2, items: 6, scanned: 6, read: 6 });
    expect(meter.records()[2]!.error).toBe('ProvisionedThroughputExceededException');
  });
});
