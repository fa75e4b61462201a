/**
 * The benchmark table of docs/benchmarks.md (linked from the README) is copied from one run: every
 * figure in it must be that run's, as `packages/bench/results.json` (written by the same `npm run bench`)
 * holds it, and the run it names (date, duration) must be that one. A page edited without a run, or
 * a run without the page, fails here. The README's "Measured" table is held to the same run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DesignName, Results } from '../packages/bench/report';
import { serverCpuPerOp } from '../packages/bench/results';

const page = readFileSync(new URL('../docs/benchmarks.md', import.meta.url), 'utf8');
const results = JSON.parse(readFileSync(new URL('../packages/bench/results.json', import.meta.url), 'utf8')) as Results;
const section = page.slice(page.indexOf('## Benchmark: one table against four'), page.indexOf('## Other measured figures'));

/** The page's rows, in order, and the scenario and design of results.json each one shows. */
const ROWS: Array<[string, DesignName]> = [
  ['customer', 'singleTable'],
  ['customer-hedged', 'singleTable'],
  ['customer', 'multiTable'],
  ['customer-hedged', 'multiTable'],
  ['customer', 'raw'],
  ['customer-strong', 'singleTable'],
  ['customer-10k', 'singleTable'],
  ['customer-10k', 'multiTable'],
  ['order', 'singleTable'],
  ['order-hedged', 'singleTable'],
  ['order', 'multiTable'],
  ['order-hedged', 'multiTable'],
  ['status', 'singleTable'],
  ['status', 'multiTable'],
  ['status-unsharded', 'singleTable'],
  ['status-unsharded', 'multiTable'],
];

/** The numeric cells of the table's body rows (requests … req/s), footnote marks dropped. */
function tableRows(): number[][] {
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) =>
    line
      .split('|')
      .slice(3, -1)
      .map((cell) => Number(cell.trim().replace(/[¹²]$/, ''))),
  );
}

describe('the benchmark section of docs/benchmarks.md is one run of npm run bench', () => {
  it('names the run packages/bench/results.json holds', () => {
    const date = results.config.date; // 2026-12-01T06:40:43.399Z
    expect(section).toContain(`${date.slice(0, 10)} ${date.slice(11, 16)} UTC`);
    expect(section).toContain(`${results.config.durationSec} s in the run below`);
  });

  it('shows that run’s figures, row by row', () => {
    const rows = tableRows();
    expect(rows).toHaveLength(ROWS.length);
    ROWS.forEach(([scenario, design], i) => {
      const d = results.scenarios.find((s) => s.id === scenario)?.designs[design];
      if (!d) throw new Error(`results.json has no ${scenario} ${design}`);
      const measured = [d.requests, d.waves, d.itemsRead, d.rcu, d.p50Ms, d.sequential.p95Ms, d.p99Ms, Math.round(d.rps)];
      expect(
        rows[i]!.map((n) => Number(n.toFixed(3))),
        `${scenario} ${design}`,
      ).toEqual(measured.map((n) => Number(n.toFixed(3))));
    });
  });
});

describe('the README quotes the same run', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const measured = readme.slice(readme.indexOf('## Measured'), readme.indexOf('## Documentation'));
  const customer = results.scenarios.find((s) => s.id === 'customer')!.designs;
  const designs: DesignName[] = ['singleTable', 'multiTable', 'raw'];
  const row = (label: string) => {
    const line = measured.split('\n').find((l) => l.startsWith(`| ${label}`));
    if (!line) throw new Error(`README has no row ${label}`);
    return line
      .split('|')
      .slice(2, -1)
      .map((cell) => Number(cell.trim()));
  };

  it('names that run', () => {
    const date = results.config.date;
    expect(measured).toContain(`${date.slice(0, 10)} ${date.slice(11, 16)} UTC`);
  });

  it('shows its customer-screen figures, design by design', () => {
    expect(row('DynamoDB requests')).toEqual(designs.map((d) => customer[d]!.requests));
    expect(row('RCU')).toEqual(designs.map((d) => customer[d]!.rcu));
    expect(row('p50 ms')).toEqual(designs.map((d) => customer[d]!.p50Ms));
    expect(row('req/s')).toEqual(designs.map((d) => Math.round(customer[d]!.rps)));
    expect(row('server CPU')).toEqual(designs.map((d) => serverCpuPerOp(customer[d])));
  });
});
