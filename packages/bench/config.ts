/**
 * Benchmark configuration: flags override environment variables, which override the defaults.
 *
 * | flag               | env                   | default | meaning                                                    |
 * | ------------------ | --------------------- | ------- | ---------------------------------------------------------- |
 * | --latency-ms N     | BENCH_LATENCY_MS      | 5       | median injected latency of one DynamoDB request (ms)       |
 * | --sigma S          | BENCH_SIGMA           | 0.3     | lognormal spread of the body (0 = constant latency)        |
 * | --tail P           | BENCH_TAIL            | 0.015   | share of requests that also take the long tail (0..1)      |
 * | --tail-ms A-B      | BENCH_TAIL_MS         | 20-50   | extra latency of a tail request, uniform in [A, B] ms      |
 * | --seed X           | BENCH_SEED            | 42      | seed of the data set and of the latency sequence           |
 * | --ops N            | BENCH_OPS             | 250     | sequential operations per scenario and design (≥ 200)      |
 * | --duration S       | BENCH_DURATION        | 1.5     | seconds of each autocannon run (every server is warmed up first) |
 * | --rounds N         | BENCH_ROUNDS          | 3       | autocannon runs per design, interleaved; the best is kept  |
 * | --warmup S         | BENCH_WARMUP          | 0.75    | seconds of load on every server and scenario before any is measured |
 * | --connections N    | BENCH_CONNECTIONS     | 16      | autocannon concurrency                                     |
 * | --customers N      | BENCH_CUSTOMERS       | 150     | ordinary customers in the data set                         |
 * | --growth-ops N     | BENCH_GROWTH_OPS      | 60      | sequential operations per size in the growth series        |
 * | --cpu-prof         | BENCH_CPU_PROF=1      | off     | write V8 CPU profiles of the server processes to packages/bench/profiles/ |
 * | --only a,b         | BENCH_ONLY            | all     | run only scenarios whose id contains one of these words    |
 * | --no-write         | BENCH_NO_WRITE=1      | off     | print the table but do not rewrite results.json/RESULTS.md |
 */
import type { LatencyModel } from './rng';

export interface BenchConfig {
  latency: LatencyModel;
  ops: number;
  warmupOps: number;
  durationSec: number;
  rounds: number;
  warmupSec: number;
  connections: number;
  customers: number;
  growthOps: number;
  cpuProf: boolean;
  only: string[];
  write: boolean;
}

export function readBenchConfig(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const flags = parseFlags(argv);
  const value = (flag: string, envName: string, fallback: string): string => flags.get(flag) ?? env[envName] ?? fallback;
  const number = (flag: string, envName: string, fallback: number, check: (n: number) => boolean = (n) => n >= 0): number => {
    const text = value(flag, envName, String(fallback));
    const n = Number(text);
    if (!Number.isFinite(n) || !check(n)) throw new Error(`--${flag} (${envName}) must be a valid number, got ${text}`);
    return n;
  };
  const [tailMin, tailMax] = parseRange(value('tail-ms', 'BENCH_TAIL_MS', '20-50'));
  const seedText = value('seed', 'BENCH_SEED', '42');
  const bool = (flag: string, envName: string) => flags.has(flag) || env[envName] === '1' || env[envName] === 'true';
  return {
    latency: {
      medianMs: number('latency-ms', 'BENCH_LATENCY_MS', 5),
      sigma: number('sigma', 'BENCH_SIGMA', 0.3),
      tail: number('tail', 'BENCH_TAIL', 0.015, (n) => n >= 0 && n <= 1),
      tailMinMs: tailMin,
      tailMaxMs: tailMax,
      seed: /^\d+$/.test(seedText) ? Number(seedText) : seedText,
    },
    ops: number('ops', 'BENCH_OPS', 250, (n) => Number.isInteger(n) && n >= 1),
    warmupOps: 30,
    durationSec: number('duration', 'BENCH_DURATION', 1.5, (n) => n > 0),
    rounds: number('rounds', 'BENCH_ROUNDS', 3, (n) => Number.isInteger(n) && n >= 1),
    warmupSec: number('warmup', 'BENCH_WARMUP', 0.75),
    connections: number('connections', 'BENCH_CONNECTIONS', 16, (n) => Number.isInteger(n) && n >= 1),
    customers: number('customers', 'BENCH_CUSTOMERS', 150, (n) => Number.isInteger(n) && n >= 10),
    growthOps: number('growth-ops', 'BENCH_GROWTH_OPS', 60, (n) => Number.isInteger(n) && n >= 1),
    cpuProf: bool('cpu-prof', 'BENCH_CPU_PROF'),
    only: (flags.get('only') ?? env.BENCH_ONLY ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    write: !(flags.has('no-write') || env.BENCH_NO_WRITE === '1'),
  };
}

const BOOLEAN_FLAGS = new Set(['cpu-prof', 'no-write', 'help']);

function parseFlags(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') continue;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (BOOLEAN_FLAGS.has(name)) {
      flags.set(name, inline ?? '1');
      continue;
    }
    const next = inline ?? argv[++i];
    if (next === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, next);
  }
  if (flags.has('help')) {
    console.log(
      'usage: npm run bench -- [--latency-ms 5] [--sigma 0.3] [--tail 0.015] [--tail-ms 20-50] [--seed 42] [--ops 250] [--duration 1.5] [--rounds 3] [--warmup 0.75] [--connections 16] [--customers 150] [--growth-ops 60] [--cpu-prof] [--only customer,status] [--no-write]\nSee packages/bench/README.md.',
    );
    process.exit(0);
  }
  return flags;
}

function parseRange(text: string): [number, number] {
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(text.trim());
  if (!match) throw new Error(`--tail-ms must look like 20-50, got ${text}`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new Error(`--tail-ms: ${max} < ${min}`);
  return [min, max];
}
