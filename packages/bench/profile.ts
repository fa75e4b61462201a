/**
 * Reads a V8 CPU profile (`.cpuprofile`, as `--cpu-prof` or the inspector writes it) and tells
 * where the time went: self time by area (our src folders, graphql, @apollo/server, the AWS SDK,
 * node internals, GC) and by function, per operation when the number of operations is known.
 *
 *   npx tsx packages/bench/profile.ts packages/bench/profiles/customer.singleTable.cpuprofile [operations] [top]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time not idle, ms. */
  busyMs: number;
  sampledMs: number;
  operations: number | undefined;
  areas: Array<{ name: string; ms: number }>;
  functions: Array<{ name: string; ms: number }>;
}

/** Which library or part of the product a script URL belongs to. */
export function areaOf(url: string): string {
  if (!url) return 'GC, native, runtime';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
    if (pkg.startsWith('@smithy/') || pkg.startsWith('@aws-sdk/') || pkg.startsWith('@aws-crypto/')) return `AWS SDK (${pkg})`;
    return pkg;
  }
  if (url.startsWith('node:')) return 'node internals (http, streams, crypto, timers)';
  // The engine's package (packages/engine/src) shows as the room it was: src/engine.
  if (url.includes('/packages/engine/')) return 'src/engine';
  const src = url.indexOf('/src/');
  if (src >= 0) return `src/${url.slice(src + 5).split('/')[0]}`;
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return `bench/${url.slice(bench + 7).split('/')[0]}`;
  return url;
}

export function summariseProfile(profile: CpuProfile, operations?: number): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let sampled = 0;
  let idle = 0;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of selfUs) {
    sampled += us;
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') {
      idle += us;
      continue;
    }
    const short = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${short || '(native)'}${short ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    // The SDK's grouping is more useful summed; functions keep the package.
    const area = url
      ? areaOf(url).replace(/^AWS SDK \(.*\)$/, 'AWS SDK (@smithy/*, @aws-sdk/*)')
      : functionName === '(garbage collector)'
        ? 'garbage collector'
        : 'native code (socket writes, JSON, crypto, microtasks)';
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000 }));
  return { busyMs: (sampled - idle) / 1000, sampledMs: sampled / 1000, operations, areas: sorted(byArea), functions: sorted(byFunction) };
}

export function formatSummary(summary: ProfileSummary, top = 25): string {
  const ops = summary.operations;
  const cell = (ms: number) =>
    `${((100 * ms) / Math.max(1e-9, summary.busyMs)).toFixed(1).padStart(5)}%${ops ? `  ${(ms / ops).toFixed(3).padStart(6)} ms/op` : ''}`;
  const lines = [
    `busy ${summary.busyMs.toFixed(0)} ms of ${summary.sampledMs.toFixed(0)} ms sampled${ops ? `, ${ops} operations: ${(summary.busyMs / ops).toFixed(3)} ms/op` : ''}`,
    'self time by area:',
  ];
  for (const { name, ms } of summary.areas.slice(0, 14)) lines.push(`  ${cell(ms)}  ${name}`);
  lines.push('self time by function:');
  for (const { name, ms } of summary.functions.slice(0, top)) lines.push(`  ${cell(ms)}  ${name}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: npx tsx packages/bench/profile.ts FILE.cpuprofile [operations] [top]');
    process.exit(2);
  }
  const operations = process.argv[3] ? Number(process.argv[3]) : undefined;
  console.log(
    formatSummary(summariseProfile(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, operations), Number(process.argv[4] ?? 30)),
  );
}
