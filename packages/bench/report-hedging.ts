/**
 * The hedged scenarios' part of the report (report.ts): hedging off and on side by side, their
 * ratios, the hedgers' counts, and the issue's targets for hedged reads.
 */
import { fmt, LABEL, ratio } from './format';
import type { DesignResult, Results, Target } from './results';

/** Hedged copies as a share of the requests the operation needs without them, %. */
export function extraRequestsPct(d: DesignResult | undefined): number | undefined {
  if (!d) return undefined;
  const base = d.requests - d.sequential.hedges;
  return base > 0 ? Math.round((10_000 * d.sequential.hedges) / base) / 100 : undefined;
}

/** The targets of hedged reads: single table hedged against the baseline without and with hedging, and the extra requests. */
export function hedgingTargets(results: Results): Target[] {
  const out: Target[] = [];
  for (const scenario of results.scenarios) {
    if (!scenario.hedging) continue;
    const plain = results.scenarios.find((s) => s.id === scenario.hedging?.of);
    const hs = scenario.designs.singleTable;
    const hm = scenario.designs.multiTable;
    const m = plain?.designs.multiTable;
    if (!hs || !hm || !m) continue;
    const vsPlain = ratio(hs.p99Ms, m.p99Ms);
    out.push({
      target: `${scenario.name}: single table hedged p99 \u2264 0.5\u00d7 the baseline without hedging`,
      measured: `${fmt(vsPlain)}\u00d7 (${fmt(hs.p99Ms)} vs ${fmt(m.p99Ms)} ms)`,
      met: vsPlain !== undefined && vsPlain <= 0.5,
    });
    const vsHedged = ratio(hs.p99Ms, hm.p99Ms);
    out.push({
      target: `${scenario.name}: single table hedged p99 \u2264 0.8\u00d7 the baseline hedged`,
      measured: `${fmt(vsHedged)}\u00d7 (${fmt(hs.p99Ms)} vs ${fmt(hm.p99Ms)} ms)`,
      met: vsHedged !== undefined && vsHedged <= 0.8,
    });
    const extra = extraRequestsPct(hs);
    out.push({
      target: `${scenario.name}: single table \u2264 5% extra requests`,
      measured: `${fmt(extra)}% (${fmt(hs.sequential.hedges, 3)} copies per operation; baseline hedged ${fmt(extraRequestsPct(hm))}%)`,
      met: extra !== undefined && extra <= 5,
    });
  }
  return out;
}

/** The Markdown section "Hedged reads: off and on, side by side" (empty without hedged scenarios). */
export function renderHedging(results: Results): string[] {
  const lines: string[] = [];
  const hedgedScenarios = results.scenarios.filter((scenario) => scenario.hedging);
  if (hedgedScenarios.length > 0) {
    const h = hedgedScenarios[0]?.hedging?.settings;
    lines.push('## Hedged reads: off and on, side by side', '');
    lines.push(
      `Each scenario measured with and without hedged reads (src/dynamo/hedge.ts: a copy after the p${h?.percentile} of the operation\u2019s recent latencies, floor ${h?.floorMs} ms, at most ${fmt((h?.budget ?? 0) * 100)}% of requests plus a burst of ${h?.burst}) in one interleaved sequential run: operation i of every row draws the same injected latencies. The baseline hedges its reads through the same module. Extra requests: hedged copies over the requests the operation needs. RCU counts an aborted copy as its winner\u2019s (an upper bound, as the product\u2019s meter does). Load: one run of each hedged server, in the last round, after a reset of its hedger and a warm-up run of the same length.`,
      '',
    );
    lines.push(
      '| scenario | design | hedging | requests | extra requests | ops hedged | RCU | p50 ms | p95 ms | p99 ms | ops that drew a tail latency | req/s | DynamoDB req/op under load |',
    );
    lines.push('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const scenario of hedgedScenarios) {
      const plain = results.scenarios.find((s) => s.id === scenario.hedging?.of);
      for (const design of ['singleTable', 'multiTable'] as const) {
        for (const [label, d] of [
          ['off', plain?.designs[design]],
          ['on', scenario.designs[design]],
        ] as const) {
          if (!d) continue;
          const s = d.sequential;
          lines.push(
            `| ${plain?.name ?? scenario.name} | ${LABEL[design]} | ${label} | ${fmt(d.requests, 3)} | ${label === 'on' ? `${fmt(extraRequestsPct(d))}%` : '—'} | ${label === 'on' ? `${fmt(s.hedgedOpsPct, 1)}%` : '—'} | ${fmt(d.rcu, 3)} | ${fmt(d.p50Ms)} | ${fmt(s.p95Ms)} | ${fmt(d.p99Ms)} | ${fmt(s.tailHitPct, 1)}% | ${fmt(d.rps, 0)} | ${fmt(d.load.dynamoRequestsPerOp)} |`,
          );
        }
      }
    }
    lines.push('');
    lines.push(
      '| scenario | single hedged / multi unhedged p99 | single hedged / multi hedged p99 | single hedged / single unhedged p99 | multi hedged / multi unhedged p99 |',
    );
    lines.push('| --- | ---: | ---: | ---: | ---: |');
    for (const scenario of hedgedScenarios) {
      const plain = results.scenarios.find((s) => s.id === scenario.hedging?.of);
      const { singleTable: hs, multiTable: hm } = scenario.designs;
      const { singleTable: ps, multiTable: pm } = plain?.designs ?? {};
      lines.push(
        `| ${plain?.name ?? scenario.name} | ${fmt(ratio(hs?.p99Ms, pm?.p99Ms))} | ${fmt(ratio(hs?.p99Ms, hm?.p99Ms))} | ${fmt(ratio(hs?.p99Ms, ps?.p99Ms))} | ${fmt(ratio(hm?.p99Ms, pm?.p99Ms))} |`,
      );
    }
    lines.push('');
    lines.push(
      'Hedger counts per server (the sequential run with its warm-up operations; the load run with its warm-up run): requests offered, copies sent, copies that won, copies the budget refused.',
      '',
    );
    for (const scenario of hedgedScenarios) {
      for (const design of ['singleTable', 'multiTable'] as const) {
        const q = scenario.hedging?.sequential[design];
        const l = scenario.hedging?.load[design];
        if (!q || !l) continue;
        lines.push(
          `- ${scenario.name}, ${LABEL[design]}: sequential ${q.requests} / ${q.hedges} / ${q.wonByHedge} / ${q.denied}; load ${l.requests} / ${l.hedges} / ${l.wonByHedge} / ${l.denied}`,
        );
      }
    }
    lines.push('');
  }
  return lines;
}
