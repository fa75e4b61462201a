/**
 * The results file's shape (results.json, written by run.ts) and the figures read off it the same
 * way everywhere: the median of the paired load rounds, the server's CPU per operation. report.ts
 * renders them; report-hedging.ts, report-status.ts and format.ts build on these types.
 */
import type { LoadResult, SequentialResult } from './measure';
import type { RawQueryShape } from './raw';
import type { HedgeSettings, HedgeStats } from 'single-table-graphql';

export type DesignName = 'singleTable' | 'multiTable' | 'raw';

export interface DesignResult {
  /** DynamoDB requests per operation (mean over the sequential run; in a hedged scenario, hedged copies included). */
  requests: number;
  waves: number;
  itemsRead: number;
  /** Consumed capacity (read capacity units) per operation, as the engine reported it. */
  rcu: number;
  p50Ms: number;
  p99Ms: number;
  /** Operations per second at `connections` concurrency. */
  rps: number;
  sequential: SequentialResult;
  /** The best of the load rounds (highest req/s); all of them in `loadRounds`. */
  load: LoadResult;
  loadRounds: LoadResult[];
}

export interface ScenarioResult {
  id: string;
  name: string;
  query: string;
  /** Whether every design returned the same (and, where known, the loaded) data. */
  verified: boolean;
  problems: string[];
  designs: Partial<Record<DesignName, DesignResult>>;
  /** single/other: p50, p99, rps (best rounds), rpsPaired (median of paired rounds), serverCpuPerOp. */
  ratios?: Record<string, Record<string, number | undefined>>;
  /** With --cpu-prof: where each server's CPU went in one extra profiled load run. */
  profiles?: Partial<Record<DesignName, ProfileResult>>;
  /** A hedged scenario (id and name contain "hedged"): the same operations as `of`, with hedged reads. */
  hedging?: HedgingResult;
}

/**
 * How a hedged scenario was run: the scenario it repeats with hedged reads (measured in the same
 * interleaved sequential run, on the same latency draws), the hedger's settings (the product's
 * defaults, for both designs), and each server's hedger counts over the sequential run (its
 * warm-up included) and over its load run.
 */
export interface HedgingResult {
  of: string;
  settings: HedgeSettings;
  sequential: Partial<Record<DesignName, HedgeStats>>;
  load: Partial<Record<DesignName, HedgeStats>>;
}

export interface ProfileResult {
  file: string;
  operations: number;
  busyMsPerOp: number;
  areas: Array<{ name: string; msPerOp: number }>;
  functions: Array<{ name: string; msPerOp: number }>;
}

export interface GrowthPoint {
  requests: number;
  itemsRead: number;
  rcu: number;
  p50Ms: number;
  p99Ms: number;
}

export interface Results {
  config: {
    latencyMs: number;
    sigma: number;
    tail: number;
    tailMs: [number, number];
    seed: number | string;
    sequentialOps: number;
    loadDurationSec: number;
    loadRounds: number;
    connections: number;
    customers: number;
    orders: number;
    singleTableItems: number;
    multiTableItems: number;
    rawQuery: RawQueryShape;
    productExplain: unknown;
    machine: { cpus: number; model: string; node: string; memoryGiB: number; os: string };
    date: string;
    /** 1, 5, 15-minute load averages of the machine before and after the run. */
    loadAverage: { before: number[]; after: number[] };
    durationSec: number;
  };
  scenarios: ScenarioResult[];
  growth: Array<{ orders: number; singleTable?: GrowthPoint; multiTable?: GrowthPoint }>;
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median over the load rounds of a/b req/s, each round's runs being next to each other in time. */
export function pairedRpsRatio(a: DesignResult | undefined, b: DesignResult | undefined): number | undefined {
  if (!a || !b) return undefined;
  const ratios = a.loadRounds
    .map((run, i) => {
      const other = b.loadRounds[i];
      return other && other.rps > 0 ? run.rps / other.rps : undefined;
    })
    .filter((r): r is number => r !== undefined);
  const m = median(ratios);
  return m === undefined ? undefined : Math.round(m * 100) / 100;
}

/** Median over the rounds of the server's CPU ms per operation. */
export function serverCpuPerOp(d: DesignResult | undefined): number | undefined {
  return d ? median(d.loadRounds.map((r) => r.cpuMsPerOp.server)) : undefined;
}

/**
 * The least server CPU ms per operation of any round: the steady state (a server's early rounds
 * still pay for V8's tiering and heap growth, more so the more code it runs), beside the median.
 */
export function leastServerCpuPerOp(d: DesignResult | undefined): number | undefined {
  return d && d.loadRounds.length > 0 ? Math.min(...d.loadRounds.map((r) => r.cpuMsPerOp.server)) : undefined;
}

export interface Target {
  target: string;
  measured: string;
  met: boolean | undefined;
}
