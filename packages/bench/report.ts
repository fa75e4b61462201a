/**
 * The results file's Markdown rendering (its shape: results.ts, re-exported here): per-scenario costs and latencies, every
 * ratio, the growth series, the targets met or missed, and where the CPU went under load.
 */
import { fmt, LABEL, ratio } from './format';
import { hedgingTargets, renderHedging } from './report-hedging';
import { statusTargets, trimmedRuns } from './report-status';
import {
  leastServerCpuPerOp,
  pairedRpsRatio,
  serverCpuPerOp,
  type DesignName,
  type DesignResult,
  type ProfileResult,
  type Results,
  type ScenarioResult,
  type Target,
} from './results';

export * from './results';

function range([min, max]: [number, number], mean: number): string {
  return min === max ? fmt(mean) : `${fmt(mean)} (${min}–${max})`;
}

export function scenarioRatios(designs: ScenarioResult['designs']): NonNullable<ScenarioResult['ratios']> {
  const out: NonNullable<ScenarioResult['ratios']> = {};
  const s = designs.singleTable;
  for (const [name, other] of [
    ['singleOverMulti', designs.multiTable],
    ['singleOverRaw', designs.raw],
  ] as const) {
    if (!s || !other) continue;
    out[name] = {
      p50: ratio(s.p50Ms, other.p50Ms),
      p99: ratio(s.p99Ms, other.p99Ms),
      rps: ratio(s.rps, other.rps),
      rpsPaired: pairedRpsRatio(s, other),
      serverCpuPerOp: ratio(serverCpuPerOp(s), serverCpuPerOp(other)),
    };
  }
  return out;
}

export function targets(results: Results): Target[] {
  const screen = results.scenarios.find((s) => s.id === 'customer');
  const single = screen?.designs.singleTable;
  const multi = screen?.designs.multiTable;
  const raw = screen?.designs.raw;
  const out: Target[] = [];
  if (single && multi) {
    out.push({
      target: 'customer screen: 1 request vs the baseline\u2019s \u2265 3',
      measured: `${fmt(single.requests)} vs ${fmt(multi.requests)}`,
      met: single.requests === 1 && multi.requests >= 3,
    });
    const rcu = ratio(single.rcu, multi.rcu);
    const strong = results.scenarios.find((s) => s.id === 'customer-strong')?.designs.singleTable;
    out.push({
      target: 'customer screen: RCU \u2264 0.8\u00d7 the baseline (eventual reads)',
      measured: `${fmt(rcu, 3)}\u00d7 (${fmt(single.rcu, 3)} vs ${fmt(multi.rcu, 3)} RCU${strong ? `; right after the reader\u2019s own write, ConsistentRead: ${fmt(strong.rcu, 3)} RCU` : ''})`,
      met: rcu !== undefined && rcu <= 0.8,
    });
    const p50 = ratio(single.p50Ms, multi.p50Ms);
    out.push({
      target: 'p50 no worse than baseline (single/multi \u2264 1)',
      measured: `${fmt(p50)}\u00d7 (${fmt(single.p50Ms)} vs ${fmt(multi.p50Ms)} ms)`,
      met: p50 !== undefined && p50 <= 1,
    });
    const p99 = ratio(single.p99Ms, multi.p99Ms);
    out.push({
      target: 'p99 clearly better under the tail (single/multi \u2264 0.8)',
      measured: `${fmt(p99)}\u00d7 (${fmt(single.p99Ms)} vs ${fmt(multi.p99Ms)} ms; operations that drew a tail latency: ${fmt(single.sequential.tailHitPct, 1)}% vs ${fmt(multi.sequential.tailHitPct, 1)}%)`,
      met: p99 !== undefined && p99 <= 0.8,
    });
    const rps = pairedRpsRatio(single, multi);
    out.push({
      target: 'throughput \u2265 1.3\u00d7 baseline (median of paired rounds)',
      measured: `${fmt(rps)}\u00d7 paired; best rounds ${fmt(single.rps, 0)} vs ${fmt(multi.rps, 0)} req/s = ${fmt(ratio(single.rps, multi.rps))}\u00d7; server CPU/op ${fmt(ratio(serverCpuPerOp(single), serverCpuPerOp(multi)))}\u00d7`,
      met: rps !== undefined && rps >= 1.3,
    });
  }
  if (single && raw) {
    const p50 = ratio(single.p50Ms, raw.p50Ms);
    out.push({
      target: 'p50 \u2264 1.25\u00d7 raw',
      measured: `${fmt(p50)}\u00d7 (${fmt(single.p50Ms)} vs ${fmt(raw.p50Ms)} ms)`,
      met: p50 !== undefined && p50 <= 1.25,
    });
    const rps = pairedRpsRatio(single, raw);
    out.push({
      target: 'throughput \u2265 0.6\u00d7 raw (median of paired rounds)',
      measured: `${fmt(rps)}\u00d7 paired; best rounds ${fmt(single.rps, 0)} vs ${fmt(raw.rps, 0)} req/s = ${fmt(ratio(single.rps, raw.rps))}\u00d7; server CPU/op ${fmt(ratio(serverCpuPerOp(single), serverCpuPerOp(raw)))}\u00d7`,
      met: rps !== undefined && rps >= 0.6,
    });
    const cpu = ratio(serverCpuPerOp(single), serverCpuPerOp(raw));
    out.push({
      target: 'server CPU per operation \u2264 1.2\u00d7 raw (median of rounds)',
      measured: `${fmt(cpu)}\u00d7 (${fmt(serverCpuPerOp(single), 3)} vs ${fmt(serverCpuPerOp(raw), 3)} ms); least-CPU rounds ${fmt(ratio(leastServerCpuPerOp(single), leastServerCpuPerOp(raw)))}\u00d7 (${fmt(leastServerCpuPerOp(single), 3)} vs ${fmt(leastServerCpuPerOp(raw), 3)} ms)`,
      met: cpu !== undefined && cpu <= 1.2, // issue 21
    });
  }
  const first = results.growth[0]?.singleTable;
  const last = results.growth.at(-1)?.singleTable;
  if (first && last) {
    out.push({
      target: `items read flat from ${results.growth[0]?.orders} to ${results.growth.at(-1)?.orders} orders`,
      measured: `${fmt(first.itemsRead)} \u2192 ${fmt(last.itemsRead)} items`,
      met: last.itemsRead <= first.itemsRead,
    });
  }
  out.push(...hedgingTargets(results));
  out.push(...statusTargets(results));
  for (const scenario of results.scenarios) {
    if (!scenario.verified)
      out.push({
        target: `${scenario.name}: every design returns the same data`,
        measured: scenario.problems.slice(0, 2).join('; '),
        met: false,
      });
  }
  return out;
}

export function renderMarkdown(results: Results): string {
  const c = results.config;
  const lines: string[] = [];
  lines.push('# Benchmark: single table vs multi-table (`npm run bench`)', '');
  lines.push(
    `Run ${c.date} on ${c.machine.cpus} × ${c.machine.model}, ${c.machine.memoryGiB} GiB, Node ${c.machine.node}, ${c.machine.os}; took ${fmt(c.durationSec, 1)} s; load average ${c.loadAverage.before.join(' ')} before, ${c.loadAverage.after.join(' ')} after.`,
  );
  lines.push(
    `Injected DynamoDB latency per request: lognormal, median ${c.latencyMs} ms, sigma ${c.sigma}; tail ${fmt(c.tail * 100)}% of requests +${c.tailMs[0]}–${c.tailMs[1]} ms; seed ${c.seed}.`,
  );
  lines.push(
    `Data: ${c.customers} customers, ${c.orders} orders (${c.singleTableItems} single-table items, ${c.multiTableItems} multi-table items). Latency: ${c.sequentialOps} sequential operations per row; throughput: autocannon, ${c.connections} connections, best of ${c.loadRounds} interleaved runs of ${c.loadDurationSec} s. Everything (engine, proxy, servers, load generator) shares the ${c.machine.cpus} cores.`,
  );
  lines.push(...trimmedRuns(results));
  lines.push(
    `Raw reference: the product's own customer-screen Query (read from its explain extension: ${c.rawQuery.scanIndexForward ? 'ascending' : 'descending'}, Limit ${c.rawQuery.limit}) sent with the SDK and serialised by hand, behind node:http.`,
    '',
  );

  lines.push('## Per scenario', '');
  lines.push(
    'Requests, waves, items read and RCU are per operation, counted at the latency proxy (mean, with min–max when it varies). p50/p99: sequential HTTP operations. req/s: autocannon. CPU ms/op: CPU time of the server process per operation under load.',
    '',
  );
  lines.push(
    '| scenario | design | DynamoDB requests | waves | items read | RCU | p50 ms | p95 ms | p99 ms | ops that drew a tail latency | req/s | server CPU ms/op |',
  );
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of results.scenarios) {
    for (const [design, d] of Object.entries(scenario.designs) as Array<[DesignName, DesignResult]>) {
      const s = d.sequential;
      lines.push(
        `| ${scenario.name}${scenario.verified ? '' : ' (⚠ answers differ)'} | ${LABEL[design]} | ${range(s.requestsRange, d.requests)} | ${range(s.wavesRange, d.waves)} | ${range(s.itemsReadRange, d.itemsRead)} | ${fmt(d.rcu, 3)} | ${fmt(d.p50Ms)} | ${fmt(s.p95Ms)} | ${fmt(d.p99Ms)} | ${fmt(s.tailHitPct, 1)}% | ${fmt(d.rps, 0)} | ${fmt(d.load.cpuMsPerOp.server, 3)} |`,
      );
    }
  }
  lines.push('');

  lines.push('## Ratios', '');
  lines.push(
    'Latency and CPU ratios below 1, throughput ratios above 1 favour the single table. req/s: best rounds, and the median over rounds of the ratio of runs made next to each other (less sensitive to outside load). CPU/op: the server process\u2019s CPU per operation (median over rounds), what carries over to production.',
    '',
  );
  lines.push(
    '| scenario | single/multi p50 | single/multi p99 | single/multi req/s (best; paired) | single/multi server CPU/op | single/raw p50 | single/raw p99 | single/raw req/s (best; paired) | single/raw server CPU/op |',
  );
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of results.scenarios) {
    const { singleTable: s, multiTable: m, raw: r } = scenario.designs;
    const rps = (a: DesignResult | undefined, b: DesignResult | undefined) =>
      a && b ? `${fmt(ratio(a.rps, b.rps))}; ${fmt(pairedRpsRatio(a, b))}` : '\u2014';
    lines.push(
      `| ${scenario.name} | ${fmt(ratio(s?.p50Ms, m?.p50Ms))} | ${fmt(ratio(s?.p99Ms, m?.p99Ms))} | ${rps(s, m)} | ${fmt(ratio(serverCpuPerOp(s), serverCpuPerOp(m)))} | ${fmt(ratio(s?.p50Ms, r?.p50Ms))} | ${fmt(ratio(s?.p99Ms, r?.p99Ms))} | ${rps(s, r)} | ${fmt(ratio(serverCpuPerOp(s), serverCpuPerOp(r)))} |`,
    );
  }
  lines.push('');

  lines.push(...renderHedging(results));

  if (results.growth.length > 0) {
    lines.push('## Growth: the customer screen as a customer\u2019s orders grow', '');
    lines.push('| orders | single table: requests | items read | RCU | p50 ms | multi-table: requests | items read | RCU | p50 ms |');
    lines.push('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const g of results.growth) {
      const s = g.singleTable;
      const m = g.multiTable;
      lines.push(
        `| ${g.orders} | ${fmt(s?.requests)} | ${fmt(s?.itemsRead)} | ${fmt(s?.rcu, 3)} | ${fmt(s?.p50Ms)} | ${fmt(m?.requests)} | ${fmt(m?.itemsRead)} | ${fmt(m?.rcu, 3)} | ${fmt(m?.p50Ms)} |`,
      );
    }
    lines.push('');
  }

  const t = targets(results);
  if (t.length > 0) {
    lines.push('## Targets (customer screen unless named)', '');
    lines.push('| target | measured | met |', '| --- | --- | :---: |');
    for (const row of t) lines.push(`| ${row.target} | ${row.measured} | ${row.met === undefined ? '—' : row.met ? 'yes' : '**no**'} |`);
    lines.push('');
  }

  lines.push('## Under load: CPU per operation by process, and DynamoDB requests per operation', '');
  lines.push(
    'All processes share the machine\u2019s cores, so throughput is bounded by their sum. The engine and the proxy stand in for DynamoDB and the network: in production their CPU is not yours. CPU columns are of the best round. \u201cOther processes\u201d is the machine\u2019s CPU used outside the benchmark during each round (a busy machine lowers every req/s).',
    '',
  );
  lines.push(
    '| scenario | design | req/s by round | server ms/op | engine ms/op | proxy ms/op | load generator ms/op | DynamoDB req/op | p50 / p99 under load ms | other processes\u2019 CPU | errors |',
  );
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of results.scenarios) {
    for (const [design, d] of Object.entries(scenario.designs) as Array<[DesignName, DesignResult]>) {
      const l = d.load;
      const errors = l.non2xx + l.errors + l.graphqlErrors + d.sequential.graphqlErrors;
      const rounds = d.loadRounds.map((r) => fmt(r.rps, 0)).join(' / ');
      const other = d.loadRounds.map((r) => (r.otherCpuPct === undefined ? '?' : `${fmt(r.otherCpuPct, 0)}%`)).join(' / ');
      lines.push(
        `| ${scenario.name} | ${LABEL[design]} | ${rounds} | ${fmt(l.cpuMsPerOp.server, 3)} | ${fmt(l.cpuMsPerOp.engine, 3)} | ${fmt(l.cpuMsPerOp.proxy, 3)} | ${fmt(l.cpuMsPerOp.loadGenerator, 3)} | ${fmt(l.dynamoRequestsPerOp)} | ${fmt(l.latencyP50Ms)} / ${fmt(l.latencyP99Ms)} | ${other} | ${errors} |`,
      );
    }
  }
  lines.push('');
  const profiled = results.scenarios.filter((scenario) => scenario.profiles && Object.keys(scenario.profiles).length > 0);
  if (profiled.length > 0) {
    lines.push('## Where the server\u2019s CPU goes (`--cpu-prof`, one extra profiled load run per design)', '');
    lines.push('Self time per operation by area, ms/op (the sampling profiler adds some overhead).', '');
    for (const scenario of profiled) {
      const entries = Object.entries(scenario.profiles ?? {}) as Array<[DesignName, ProfileResult]>;
      const areas = [...new Set(entries.flatMap(([, p]) => p.areas.slice(0, 8).map((a) => a.name)))];
      lines.push(`**${scenario.name}**`, '');
      lines.push(`| area | ${entries.map(([d]) => LABEL[d]).join(' | ')} |`);
      lines.push(`| --- | ${entries.map(() => '---:').join(' | ')} |`);
      lines.push(`| **total busy** | ${entries.map(([, p]) => `**${fmt(p.busyMsPerOp, 3)}**`).join(' | ')} |`);
      for (const area of areas)
        lines.push(`| ${area} | ${entries.map(([, p]) => fmt(p.areas.find((a) => a.name === area)?.msPerOp, 3)).join(' | ')} |`);
      lines.push('');
    }
  }

  lines.push(
    'DynamoDB requests of one operation, in order of arrival at the proxy, and what one DynamoDB request cost in the sequential run (p50 of the latency the proxy applied, and of the time the engine and the extra hop added):',
    '',
  );
  for (const scenario of results.scenarios) {
    for (const [design, d] of Object.entries(scenario.designs) as Array<[DesignName, DesignResult]>) {
      lines.push(
        `- ${scenario.name}, ${LABEL[design]}: ${d.sequential.operations.join(', ') || '—'}${d.sequential.askedCapacity ? '' : ' (some requests did not ask for consumed capacity)'}; injected ${fmt(d.sequential.injectedP50Ms)} ms + engine/hop ${fmt(d.sequential.engineHopP50Ms)} ms`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}
