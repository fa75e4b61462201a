/**
 * The hedging mechanism alone (src/dynamo/hedge.ts), on fake timers and hand-made sends: the
 * latency window's percentile, the token bucket's exact counts, and the race (who is sent, who
 * wins, who is aborted, which error is thrown). Counts and behaviour only; time is the fake clock's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_HEDGE_SETTINGS, HedgeBudget, Hedger, LatencyWindow } from '../../src/dynamo/hedge';

/** A send whose copies answer when the test says so; each call's abort signal is kept. */
function controlledSend<T>() {
  const calls: Array<{ signal: AbortSignal; resolve: (value: T) => void; reject: (error: unknown) => void }> = [];
  const send = (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ signal, resolve, reject });
      signal.addEventListener('abort', () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })), { once: true });
    });
  return { calls, send };
}

/** A hedger that knows its operation already: `samples` latencies of `ms` recorded through instant sends. */
async function warmed(settings: ConstructorParameters<typeof Hedger>[0], operation = 'GetItem', samples = 20, ms = 4) {
  const hedger = new Hedger({ recomputeEvery: 1, ...settings });
  for (let i = 0; i < samples; i++) {
    const run = hedger.run(operation, () => new Promise((resolve) => setTimeout(() => resolve(i), ms)));
    await vi.advanceTimersByTimeAsync(ms);
    await run;
  }
  return hedger;
}

describe('LatencyWindow', () => {
  it('gives the nearest-rank percentile of the latencies it holds, and forgets the oldest beyond its size', () => {
    const window = new LatencyWindow(100, 95, 1);
    expect(window.value()).toBeUndefined();
    for (let ms = 1; ms <= 100; ms++) window.record(ms);
    expect(window.value()).toBe(95);
    for (let i = 0; i < 100; i++) window.record(1000 + i); // the first hundred are gone
    expect(window.size).toBe(100);
    expect(window.value()).toBe(1094);
  });

  it('recomputes only every `recomputeEvery` latencies (the cost per request stays flat)', () => {
    const window = new LatencyWindow(10, 95, 4);
    for (let i = 0; i < 4; i++) window.record(10);
    expect(window.value()).toBe(10);
    for (let i = 0; i < 3; i++) window.record(99);
    expect(window.value()).toBe(10); // 3 new latencies: still the cached figure
    window.record(99);
    expect(window.value()).toBe(99);
  });
});

describe('HedgeBudget', () => {
  it('starts full at its burst, then allows exactly `share` of requests', () => {
    const budget = new HedgeBudget(0.05, 2);
    let hedges = 0;
    for (let i = 0; i < 100; i++) {
      budget.deposit();
      if (budget.take()) hedges++;
    }
    // 2 from the full bucket at once, then one every 20 requests: requests 21, 41, 61, 81 (and none at 100: 0.95 left).
    expect(hedges).toBe(2 + 4);
    expect(budget.available).toBe(0);
  });

  it('never holds more than its burst, however long it was idle', () => {
    const budget = new HedgeBudget(0.5, 3);
    for (let i = 0; i < 1000; i++) budget.deposit();
    expect(budget.available).toBe(3);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
  });

  it('allows no hedge at all with a budget of 0 (HEDGE_BUDGET=0), not even a first burst', () => {
    const budget = new HedgeBudget(0, 10);
    for (let i = 0; i < 100; i++) budget.deposit();
    expect(budget.take()).toBe(false);
  });
});

describe('Hedger', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('defaults: p95, a 5 ms floor, 5% of requests with a burst of 10, 20 latencies before the first hedge', () => {
    expect(DEFAULT_HEDGE_SETTINGS).toMatchObject({ percentile: 95, floorMs: 5, budget: 0.05, burst: 10, minSamples: 20 });
    expect(() => new Hedger({ budget: 1.5 })).toThrow(/budget/);
    expect(() => new Hedger({ percentile: 100 })).toThrow(/percentile/);
  });

  it('does not hedge a cold operation (fewer latencies than minSamples), however slow', async () => {
    const hedger = await warmed({ floorMs: 5 }, 'GetItem', 19);
    expect(hedger.delayFor('GetItem')).toBeUndefined();
    const { calls, send } = controlledSend<string>();
    const run = hedger.run('GetItem', send);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('late');
    expect(await run).toEqual({ value: 'late', hedge: undefined });
    expect(hedger.delayFor('GetItem')).toBe(5); // its 20th latency: warm now, the floor above p95 (4 ms)
  });

  it('sends one copy after the delay, takes the first answer and aborts the other', async () => {
    const hedger = await warmed({ floorMs: 5 });
    expect(hedger.delayFor('GetItem')).toBe(5);
    const { calls, send } = controlledSend<string>();
    const run = hedger.run('GetItem', send);
    await vi.advanceTimersByTimeAsync(4);
    expect(calls).toHaveLength(1); // before the delay: no copy
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('from the copy');
    expect(await run).toEqual({ value: 'from the copy', hedge: { winner: 'hedge' } });
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(calls[1]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(hedger.stats()).toMatchObject({ hedges: 1, wonByHedge: 1, abortedLosers: 1, denied: 0 });
  });

  it('keeps the first answer when the original wins after the copy was sent, and aborts the copy', async () => {
    const hedger = await warmed({ floorMs: 5 });
    const { calls, send } = controlledSend<string>();
    const run = hedger.run('Query', send);
    await vi.advanceTimersByTimeAsync(0);
    // Query is a cold operation here: no copy at all.
    await vi.advanceTimersByTimeAsync(50);
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('q');
    await run;
    const get = controlledSend<string>();
    const second = hedger.run('GetItem', get.send);
    await vi.advanceTimersByTimeAsync(5);
    expect(get.calls).toHaveLength(2);
    get.calls[0]!.resolve('original');
    expect(await second).toEqual({ value: 'original', hedge: { winner: 'primary' } });
    expect(get.calls[1]!.signal.aborted).toBe(true);
  });

  it('never hedges a request that answers before the delay', async () => {
    const hedger = await warmed({ floorMs: 5 });
    for (let i = 0; i < 50; i++) {
      const { calls, send } = controlledSend<number>();
      const run = hedger.run('GetItem', send);
      await vi.advanceTimersByTimeAsync(4);
      calls[0]!.resolve(i);
      expect(await run).toEqual({ value: i, hedge: undefined });
      await vi.advanceTimersByTimeAsync(100);
      expect(calls).toHaveLength(1);
    }
    expect(hedger.stats()).toMatchObject({ requests: 70, hedges: 0, denied: 0 });
  });

  it('waits for the other copy when one fails, and throws the original error when both do', async () => {
    const hedger = await warmed({ floorMs: 5 });
    const a = controlledSend<string>();
    const first = hedger.run('GetItem', a.send);
    await vi.advanceTimersByTimeAsync(5);
    a.calls[0]!.reject(new Error('original failed'));
    await vi.advanceTimersByTimeAsync(0);
    a.calls[1]!.resolve('copy answered');
    expect(await first).toEqual({ value: 'copy answered', hedge: { winner: 'hedge' } });

    const b = controlledSend<string>();
    const second = hedger.run('GetItem', b.send);
    const outcome = second.catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(5);
    b.calls[1]!.reject(new Error('copy failed'));
    b.calls[0]!.reject(new Error('original failed'));
    expect(await outcome).toBe('original failed');

    const c = controlledSend<string>();
    const third = hedger.run('GetItem', c.send).catch((error: Error) => error.message);
    c.calls[0]!.reject(new Error('failed before the delay'));
    expect(await third).toBe('failed before the delay');
    await vi.advanceTimersByTimeAsync(50);
    expect(c.calls).toHaveLength(1); // a failure before the delay is not hedged (the SDK has retried it already)
  });

  it('caps hedges under a storm of slow requests: the burst at once, then `budget` of the requests', async () => {
    const hedger = await warmed({ floorMs: 5, budget: 0.05, burst: 2 });
    const storm = Array.from({ length: 40 }, () => controlledSend<number>());
    const runs = storm.map((s) => hedger.run('GetItem', s.send));
    await vi.advanceTimersByTimeAsync(5);
    // All 40 are slow: the bucket (full, 2) pays for 2 copies, the 38 others are refused.
    expect(storm.reduce((n, s) => n + s.calls.length, 0)).toBe(42);
    expect(hedger.stats()).toMatchObject({ hedges: 2, denied: 38 });
    storm.forEach((s, i) => s.calls[0]!.resolve(i));
    await Promise.all(runs);

    // Then one slow request at a time: 5% of 40 earns 2 more copies, sent by the 20th and the 40th.
    const copies: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const { calls, send } = controlledSend<number>();
      const run = hedger.run('GetItem', send);
      await vi.advanceTimersByTimeAsync(5);
      if (calls.length === 2) copies.push(i);
      calls[0]!.resolve(i);
      await run;
    }
    expect(copies).toEqual([20, 40]);
    expect(hedger.stats()).toMatchObject({ requests: 20 + 80, hedges: 4, denied: 38 + 38 });
  });

  it('adapts the delay to the operation: p95 of its own recent latencies, never below the floor', async () => {
    const hedger = await warmed({ floorMs: 5 }, 'Query', 100, 30);
    expect(hedger.delayFor('Query')).toBe(30);
    expect(hedger.delayFor('BatchGetItem')).toBeUndefined();
  });
});
