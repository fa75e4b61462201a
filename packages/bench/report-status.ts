/**
 * The targets of the like-for-like status rows (issue 14): `ordersByStatus(first: 50)` with names on
 * both designs sharded alike (`status`) and both unsharded (`status-unsharded`).
 */
import { fmt, ratio } from './format';
import { leastServerCpuPerOp, serverCpuPerOp, type Results, type Target } from './results';

/** The page size of the status scenario (scenarios.ts) and the items it needs: first + 1. */
const WANTED = 51;

/** A line naming the scenarios run with fewer sequential operations or load rounds than the run's defaults. */
export function trimmedRuns(results: Results): string[] {
  const { sequentialOps, loadRounds } = results.config;
  const trimmed = results.scenarios.flatMap((scenario) => {
    const d = scenario.designs.singleTable ?? scenario.designs.multiTable;
    if (!d || scenario.hedging || (d.sequential.ops >= sequentialOps && d.loadRounds.length >= loadRounds)) return [];
    return [`${scenario.name}: ${d.sequential.ops} sequential operations, best of ${d.loadRounds.length} runs`];
  });
  return trimmed.length > 0 ? [`Trimmed to keep the run under 3 minutes: ${trimmed.join('; ')}.`] : [];
}

export function statusTargets(results: Results): Target[] {
  const sharded = results.scenarios.find((s) => s.id === 'status');
  const unsharded = results.scenarios.find((s) => s.id === 'status-unsharded');
  const s = sharded?.designs.singleTable;
  const m = sharded?.designs.multiTable;
  const out: Target[] = [];
  if (!s || !m) return out;
  // The unsharded baseline reads exactly W index items (Limit 51); the rest of its items are the names.
  const mu = unsharded?.designs.multiTable;
  const names = mu ? mu.itemsRead - WANTED : undefined;
  if (names !== undefined) {
    const index = s.itemsRead - names;
    out.push({
      target: `ordersByStatus(first: 50): status index items per page \u2264 1.2 \u00d7 (first + 1) = ${fmt(1.2 * WANTED, 1)}, plus the names`,
      measured: `${fmt(index, 1)} = ${fmt(index / WANTED)} \u00d7 ${WANTED} (${fmt(s.itemsRead)} items read, ${fmt(names)} of them names)`,
      met: index <= 1.2 * WANTED,
    });
  }
  const topUps = s.waves - 2;
  out.push({
    target: 'ordersByStatus(first: 50): no added wave in the common case (2 waves: shards, names)',
    measured: `${fmt(s.waves)} waves per page on average (${fmt(Math.max(0, 100 * topUps), 0)}% of pages read a shard again)`,
    met: topUps < 0.5,
  });
  const cpu = ratio(serverCpuPerOp(s), serverCpuPerOp(m));
  const su = unsharded?.designs.singleTable;
  out.push({
    target: 'ordersByStatus: single-table server CPU per operation \u2264 1.0\u00d7 the baseline at equal sharding',
    measured: `${fmt(cpu)}\u00d7 sharded (${fmt(serverCpuPerOp(s), 3)} vs ${fmt(serverCpuPerOp(m), 3)} ms; least-CPU rounds ${fmt(ratio(leastServerCpuPerOp(s), leastServerCpuPerOp(m)))}\u00d7); unsharded ${fmt(ratio(serverCpuPerOp(su), serverCpuPerOp(mu)))}\u00d7`,
    met: cpu !== undefined && cpu <= 1,
  });
  return out;
}
