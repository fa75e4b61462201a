/**
 * How one (scenario, design) pair is measured:
 *
 * 1. Sequential: `ops` HTTP POSTs one after the other on one keep-alive connection per endpoint
 *    (after a short warm-up), the designs interleaved operation by operation, each timed from
 *    send to last byte. Operation i of every design draws its injected latencies from the same
 *    seeded stream (common random numbers), so the designs are compared on the same luck. After each operation the proxy's records are
 *    drained, so every DynamoDB request is attributed to exactly the operation that caused it:
 *    requests, waves (see `countWaves`), items read, consumed capacity, per operation.
 * 2. Load: autocannon at `connections` concurrency against the same endpoint for `durationSec`
 *    (after a `warmupSec` warm-up run): requests/s, latency under load, and the CPU time each
 *    process spent per operation (server under test, engine, proxy, load generator).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import type { ChildHandle, CpuSample } from './ipc';
import { countWaves, type ProxyCounters, type ProxyRecord } from './proxy';

export interface SequentialResult {
  ops: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** Per operation, averaged over the sequential run. */
  requests: number;
  waves: number;
  itemsRead: number;
  itemsReturned: number;
  rcu: number;
  /** min–max per operation, to show when the cost is not constant. */
  requestsRange: [number, number];
  wavesRange: [number, number];
  itemsReadRange: [number, number];
  /** DynamoDB operations of the first measured operation, e.g. ['GetItem', 'Query', 'Query']. */
  operations: string[];
  /** Whether every DynamoDB request asked for ReturnConsumedCapacity. */
  askedCapacity: boolean;
  graphqlErrors: number;
  /** Median of the latency the proxy really applied to this run's requests, ms. */
  injectedP50Ms: number;
  /** Median time a request spent at the proxy beyond the injected latency (engine + hop), ms. */
  engineHopP50Ms: number;
  /** Share of operations with at least one DynamoDB request that drew the long tail, %. */
  tailHitPct: number;
  /** p95 of the sequential latencies, ms. */
  p95Ms: number;
  /**
   * Hedged copies per operation (mean): requests whose body repeats an earlier request of the same
   * operation. Included in `requests`. 0 for a design that does not hedge.
   */
  hedges: number;
  /** Share of operations that sent at least one hedged copy, %. */
  hedgedOpsPct: number;
}

export interface LoadResult {
  rps: number;
  completed: number;
  durationSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  graphqlErrors: number;
  /** DynamoDB requests that reached the proxy per completed operation, under load. */
  dynamoRequestsPerOp: number;
  /** CPU ms spent per completed operation by each process. */
  cpuMsPerOp: { server: number; engine: number; proxy: number; loadGenerator: number };
  /** Share of the machine's CPU used by processes outside the benchmark during the run (Linux), %. */
  otherCpuPct: number | undefined;
}

export interface Processes {
  proxy: ChildHandle;
  engine: ChildHandle;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/**
 * Sequential operations against several endpoints at once, interleaved: operation i goes to each
 * endpoint in turn (same body), so a pause of the machine (GC elsewhere, another process) falls on
 * every design alike instead of on whichever happened to be running.
 */
export async function runSequential<K extends string>(
  targets: ReadonlyArray<{ key: K; url: string; headers?: Record<string, string> }>,
  bodies: readonly string[],
  options: { ops: number; warmupOps: number; label: string },
  processes: Processes,
): Promise<Map<K, SequentialResult>> {
  interface Cost {
    requests: number;
    waves: number;
    itemsRead: number;
    itemsReturned: number;
    rcu: number;
    asked: boolean;
    tail: boolean;
    operations: string[];
    hedges: number;
  }
  const state = new Map(
    targets.map((t) => [
      t.key,
      { latencies: [] as number[], applied: [] as number[], hop: [] as number[], costs: [] as Cost[], graphqlErrors: 0 },
    ]),
  );
  const check = (key: K, url: string, answer: { status: number; text: string }) => {
    if (answer.status !== 200 || answer.text.includes('"errors"')) {
      const s = state.get(key);
      if (!s) return;
      s.graphqlErrors++;
      if (s.graphqlErrors <= 3) console.warn(`  ! ${url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    }
  };
  for (let i = 0; i < options.warmupOps; i++) {
    for (const t of targets) check(t.key, t.url, await post(t.url, bodies[i % bodies.length] as string, t.headers));
  }
  for (const s of state.values()) s.graphqlErrors = 0;
  await processes.proxy.call('reset', true);
  // Operation i of every design draws its latencies from the same seeded stream: each drain
  // (one IPC call, outside the timed part) also names the stream of the next operation.
  const streamOf = (i: number) => (i < options.ops ? `${options.label}#${i}` : null);
  await processes.proxy.call('operation', streamOf(0));
  for (let i = 0; i < options.ops; i++) {
    const body = bodies[i % bodies.length] as string;
    for (const [n, t] of targets.entries()) {
      const s = state.get(t.key);
      if (!s) continue;
      const started = performance.now();
      const answer = await post(t.url, body, t.headers);
      s.latencies.push(performance.now() - started);
      check(t.key, t.url, answer);
      const records = await processes.proxy.call<ProxyRecord[]>('drain', streamOf(n === targets.length - 1 ? i + 1 : i));
      for (const r of records) {
        if (r.aborted) continue;
        s.applied.push(r.appliedMs);
        s.hop.push(r.endedAt - r.startedAt - r.appliedMs);
      }
      s.costs.push({
        requests: records.length,
        waves: countWaves(logicalRequests(records)),
        itemsRead: sum(records.map((r) => r.scanned)),
        itemsReturned: sum(records.map((r) => r.items)),
        rcu: capacityUpperBound(records),
        hedges: records.length - new Set(records.map((r) => r.bodyKey)).size,
        asked: records.every((r) => r.askedCapacity),
        tail: records.some((r) => r.tail),
        operations: [...records]
          .sort((a, b) => a.startedAt - b.startedAt)
          .map((r) => (r.index ? `${r.operation}(${r.tables.join(',')}.${r.index})` : `${r.operation}(${r.tables.join(',')})`)),
      });
    }
  }
  await processes.proxy.call('reset', false);
  const out = new Map<K, SequentialResult>();
  const range = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
  for (const [key, { latencies, applied, hop, costs, graphqlErrors }] of state) {
    const sorted = [...latencies].sort((a, b) => a - b);
    out.set(key, {
      ops: options.ops,
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      meanMs: round(sum(latencies) / latencies.length),
      maxMs: round(sorted.at(-1) ?? Number.NaN),
      requests: round(mean(costs.map((c) => c.requests))),
      waves: round(mean(costs.map((c) => c.waves))),
      itemsRead: round(mean(costs.map((c) => c.itemsRead))),
      itemsReturned: round(mean(costs.map((c) => c.itemsReturned))),
      rcu: round(mean(costs.map((c) => c.rcu)), 3),
      requestsRange: range(costs.map((c) => c.requests)),
      wavesRange: range(costs.map((c) => c.waves)),
      itemsReadRange: range(costs.map((c) => c.itemsRead)),
      operations: costs[0]?.operations ?? [],
      askedCapacity: costs.every((c) => c.asked),
      graphqlErrors,
      injectedP50Ms: round(
        percentile(
          [...applied].sort((a, b) => a - b),
          50,
        ),
      ),
      engineHopP50Ms: round(
        percentile(
          [...hop].sort((a, b) => a - b),
          50,
        ),
      ),
      tailHitPct: round((100 * costs.filter((c) => c.tail).length) / Math.max(1, costs.length), 1),
      p95Ms: round(percentile(sorted, 95)),
      hedges: round(mean(costs.map((c) => c.hedges)), 4),
      hedgedOpsPct: round((100 * costs.filter((c) => c.hedges > 0).length) / Math.max(1, costs.length), 1),
    });
  }
  return out;
}

export async function runLoad(
  url: string,
  bodies: readonly string[],
  options: { connections: number; durationSec: number; warmupSec: number; headers?: Record<string, string> },
  server: ChildHandle,
  processes: Processes,
): Promise<LoadResult> {
  const fire = async (durationSec: number) => {
    let next = 0;
    let graphqlErrors = 0;
    const result = await autocannon({
      url,
      connections: options.connections,
      duration: durationSec,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...options.headers },
          setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] as string }),
          onResponse: (status, body) => {
            if (status !== 200 || body.includes('"errors"')) graphqlErrors++;
          },
        },
      ],
    });
    return { result, graphqlErrors };
  };
  if (options.warmupSec > 0) await fire(options.warmupSec);
  const before = await snapshot(server, processes);
  const { result, graphqlErrors } = await fire(options.durationSec);
  const after = await snapshot(server, processes);
  const completed = result.requests.total;
  const cpuMs = (a: CpuSample, b: CpuSample) => (b.user + b.system - a.user - a.system) / 1000;
  const perOp = (a: CpuSample, b: CpuSample) => round(cpuMs(a, b) / Math.max(1, completed), 3);
  const ours =
    cpuMs(before.server, after.server) +
    cpuMs(before.engine, after.engine) +
    cpuMs(before.proxy, after.proxy) +
    cpuMs(before.self, after.self);
  const wallMs = after.wallMs - before.wallMs;
  const otherCpuPct =
    before.machineBusyMs === undefined || after.machineBusyMs === undefined
      ? undefined
      : round(Math.max(0, (after.machineBusyMs - before.machineBusyMs - ours) / (wallMs * cpus().length)) * 100, 1);
  return {
    rps: round(completed / result.duration, 1),
    completed,
    durationSec: round(result.duration, 2),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    graphqlErrors,
    dynamoRequestsPerOp: round((after.counters.requests - before.counters.requests) / Math.max(1, completed), 2),
    cpuMsPerOp: {
      server: perOp(before.server, after.server),
      engine: perOp(before.engine, after.engine),
      proxy: perOp(before.proxy, after.proxy),
      loadGenerator: perOp(before.self, after.self),
    },
    otherCpuPct,
  };
}

async function snapshot(server: ChildHandle, processes: Processes) {
  const usage = process.cpuUsage();
  const [serverCpu, engine, proxy, counters] = await Promise.all([
    server.call<CpuSample>('cpu'),
    processes.engine.call<CpuSample>('cpu'),
    processes.proxy.call<CpuSample>('cpu'),
    processes.proxy.call<ProxyCounters>('counters'),
  ]);
  return {
    server: serverCpu,
    engine,
    proxy,
    counters,
    self: { user: usage.user, system: usage.system, rssBytes: 0 },
    machineBusyMs: machineBusyMs(),
    wallMs: performance.now(),
  };
}

/** CPU time the whole machine has spent busy since boot, ms (Linux /proc/stat; USER_HZ = 100). */
function machineBusyMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) * 10;
  } catch {
    return undefined;
  }
}

/**
 * One operation's requests with each hedged copy merged into its original (same body): sent when the
 * first was sent, answered when the first of them was. A copy is not a wave of its own, as in the
 * product's meter.
 */
function logicalRequests(records: readonly ProxyRecord[]): Array<Pick<ProxyRecord, 'startedAt' | 'endedAt'>> {
  const merged = new Map<string, { startedAt: number; endedAt: number }>();
  for (const r of [...records].sort((a, b) => Number(a.aborted) - Number(b.aborted))) {
    const seen = merged.get(r.bodyKey);
    if (!seen) merged.set(r.bodyKey, { startedAt: r.startedAt, endedAt: r.endedAt });
    else {
      seen.startedAt = Math.min(seen.startedAt, r.startedAt);
      if (!r.aborted) seen.endedAt = Math.min(seen.endedAt, r.endedAt);
    }
  }
  return [...merged.values()];
}

/**
 * Consumed capacity of one operation's requests, as the product's meter counts a hedged read: an
 * aborted copy's capacity is unknown, so it counts as its answered twin's (same body): an upper bound.
 */
function capacityUpperBound(records: readonly ProxyRecord[]): number {
  const answered = new Map<string, number>();
  for (const r of records) if (!r.aborted) answered.set(r.bodyKey, r.capacity);
  return sum(records.map((r) => (r.aborted ? (answered.get(r.bodyKey) ?? 0) : r.capacity)));
}

function sum(values: readonly number[]): number {
  return values.reduce((n, v) => n + v, 0);
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : sum(values) / values.length;
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
