/**
 * `npm run bench`: the single-table claim, measured side by side with a multi-table design.
 *
 * Starts (each in its own process) the embedded engine, a latency proxy in front of it, the
 * product's real HTTP GraphQL server, the multi-table baseline's GraphQL server (same schema), and
 * a raw customer-screen endpoint; loads the same seeded data into both designs; then, scenario by
 * scenario and design by design, measures DynamoDB requests, waves, items read, consumed
 * capacity, sequential p50/p99 and throughput under autocannon. Writes packages/bench/results.json and
 * packages/bench/RESULTS.md and prints the Markdown. See packages/bench/README.md for flags.
 */
import { writeFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, platform, release, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import { createDocumentClient, ensureTable, devClaims, openDevIssuer, readConfig, readModelSettings } from 'single-table-graphql';
import { DEFAULT_HEDGE_SETTINGS, type HedgeStats } from 'single-table-graphql';
import { readBenchConfig } from './config';
import { spawnChild, type ChildHandle } from './ipc';
import { buildDataSet, GROWTH_SIZES, multiTableWrites, singleTableWrites, statusWrites, writeAll, type DataSet } from './data';
import { createMultiTables } from './multi-table/tables';
import { round, runLoad, runSequential, type LoadResult, type Processes, type SequentialResult } from './measure';
import { renderMarkdown, scenarioRatios, type DesignName, type HedgingResult, type Results, type ScenarioResult } from './report';
import { body, ORDERS_SHOWN, QUERIES, scenarios, type Scenario } from './scenarios';
import { probeProductQuery, TABLE_NAME } from './probe';
import { verify, type Target } from './verify';
import { formatSummary, summariseProfile, type CpuProfile } from './profile';

const here = dirname(fileURLToPath(import.meta.url));
/** The single table of the unsharded status row, written with STATUS_SHARDS=1. */
const UNSHARDED_TABLE = 'app-unsharded';

async function main() {
  const config = readBenchConfig();
  // The data written here and the servers that read it agree on the status index's shard count (STATUS_SHARDS).
  const shards = readModelSettings().statusShards;
  // The SDK's notice that its 2027 releases need Node 22 is noise here (children inherit this).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const loadBefore = loadavg();
  const startedAt = Date.now();
  const log = (message: string) => console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)}s] ${message}`);
  const profileDir = join(here, 'profiles');
  const issuerDir = mkdtempSync(join(tmpdir(), 'bench-issuer-'));
  if (config.cpuProf) mkdirSync(profileDir, { recursive: true });

  const children: ChildHandle[] = [];
  const spawn = async (...args: Parameters<typeof spawnChild>) => {
    const child = await spawnChild(...args);
    children.push(child);
    return child;
  };
  let stopping = false;
  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.reverse().map((child) => child.stop().catch(() => undefined)));
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

  try {
    const engine = await spawn('engine');
    const proxy = await spawn('proxy', {
      env: { BENCH_CHILD_CONFIG: JSON.stringify({ endpoint: engine.endpoint, latency: config.latency }) },
    });
    const processes: Processes = { engine, proxy };
    log(
      `engine ${engine.endpoint}, latency proxy ${proxy.endpoint} (median ${config.latency.medianMs} ms, sigma ${config.latency.sigma}, tail ${config.latency.tail} × +${config.latency.tailMinMs}–${config.latency.tailMaxMs} ms, seed ${config.latency.seed})`,
    );

    // ---- data ---------------------------------------------------------------------------------
    const loader = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
    await ensureTable(loader, TABLE_NAME);
    await createMultiTables(loader);
    const data = buildDataSet({ customers: config.customers, seed: config.latency.seed });
    const selected = scenarios(data, config);
    const singleWrites = singleTableWrites(data, TABLE_NAME, shards);
    const multiWrites = multiTableWrites(data, shards);
    const unsharded = selected.some((scenario) => scenario.unsharded);
    if (unsharded) await ensureTable(loader, UNSHARDED_TABLE);
    const unshardedWrites = unsharded ? statusWrites(data, UNSHARDED_TABLE, 1) : [];
    await Promise.all([writeAll(loader, singleWrites), writeAll(loader, multiWrites), writeAll(loader, unshardedWrites)]);
    loader.destroy();
    const orderCount = data.customers.reduce((n, c) => n + c.orders.length, 0);
    log(
      `loaded ${data.customers.length} customers, ${orderCount} orders: ${singleWrites.length} single-table items, ${multiWrites.length} multi-table items`,
    );

    // ---- servers ------------------------------------------------------------------------------
    const childConfig = (extra: Record<string, unknown> = {}) => ({
      BENCH_CHILD_CONFIG: JSON.stringify({ endpoint: proxy.endpoint, tableName: TABLE_NAME, ...extra }),
    });
    // The product's server verifies bearer tokens (src/auth): a dev issuer whose key file lives in a
    // temporary directory shared with the child (BENCH_ISSUER_DIR); its clients send a staff token.
    // The baseline and the raw endpoint have no identity layer and get no token.
    const auth = readConfig({ DEV_ISSUER_FILE: join(issuerDir, 'dev-issuer.json') }).auth;
    const staffToken = await (await openDevIssuer(auth.devKeyFile)).sign(devClaims(auth, { staff: true }), 24 * 3600);
    const headersOf: Record<DesignName, Record<string, string>> = {
      singleTable: { authorization: `Bearer ${staffToken}` },
      multiTable: {},
      raw: {},
    };
    const single = await spawn('single', { env: { ...childConfig(), BENCH_ISSUER_DIR: issuerDir } });
    const multi = await spawn('multi', { env: childConfig({ statusShards: shards }) });
    const probe = await probeProductQuery(
      single.endpoint,
      (data.ordinary[0] as DataSet['ordinary'][number]).customer.id,
      headersOf.singleTable,
    );
    const raw = await spawn('raw', { env: childConfig({ rawQuery: probe.shape, ordersShown: ORDERS_SHOWN }) });
    const servers: Record<DesignName, ChildHandle> = { singleTable: single, multiTable: multi, raw };
    const urls: Record<DesignName, string> = { singleTable: single.endpoint, multiTable: multi.endpoint, raw: raw.endpoint };
    log(
      `servers: single-table ${single.endpoint}, multi-table ${multi.endpoint}, raw ${raw.endpoint}; raw Query copied from the explain extension: ${JSON.stringify(probe.shape)}`,
    );
    // Both designs with an unsharded status index, for the status scenario (the product: STATUS_SHARDS=1).
    const unshardedServers: Partial<Record<DesignName, ChildHandle>> = {};
    if (unsharded) {
      const env = { ...childConfig({ tableName: UNSHARDED_TABLE }), STATUS_SHARDS: '1', BENCH_ISSUER_DIR: issuerDir };
      [unshardedServers.singleTable, unshardedServers.multiTable] = await Promise.all([
        spawn('single', { env }),
        spawn('multi', { env: childConfig({ statusShards: 1 }) }),
      ]);
      log(
        `unsharded status servers: single-table ${unshardedServers.singleTable.endpoint}, multi-table ${unshardedServers.multiTable.endpoint}`,
      );
    }
    // The same two servers with hedged reads (src/dynamo/hedge.ts, its defaults), for the scenarios measured both ways.
    const hedgedServers: Partial<Record<DesignName, ChildHandle>> = {};
    if (selected.some((scenario) => scenario.hedged)) {
      hedgedServers.singleTable = await spawn('single', { env: { ...childConfig({ hedge: true }), BENCH_ISSUER_DIR: issuerDir } });
      hedgedServers.multiTable = await spawn('multi', { env: childConfig({ hedge: true, statusShards: shards }) });
      log(`hedged servers: single-table ${hedgedServers.singleTable.endpoint}, multi-table ${hedgedServers.multiTable.endpoint}`);
    }
    const targetsOf = (scenario: Scenario): Target[] => [
      ...scenario.designs.map((design) => ({
        key: design,
        design,
        hedged: false,
        url: urls[design],
        headers: design === 'singleTable' ? { ...headersOf[design], ...scenario.headers } : headersOf[design],
        server: servers[design],
      })),
      ...(scenario.hedged
        ? (['singleTable', 'multiTable'] as const).map((design) => {
            const server = hedgedServers[design] as ChildHandle;
            return { key: `${design}+hedged`, design, hedged: true, url: server.endpoint, headers: headersOf[design], server };
          })
        : []),
      ...(scenario.unsharded
        ? (['singleTable', 'multiTable'] as const).map((design) => {
            const server = unshardedServers[design] as ChildHandle;
            const key = `${design}+unsharded`;
            return { key, design, hedged: false, unsharded: true, url: server.endpoint, headers: headersOf[design], server };
          })
        : []),
    ];

    // ---- warm-up: every server, every scenario, under load, before anything is measured -------
    for (const scenario of selected) {
      for (const target of targetsOf(scenario))
        await runLoad(
          target.url,
          scenario.bodies,
          { connections: config.connections, durationSec: config.warmupSec, warmupSec: 0, headers: target.headers },
          target.server,
          processes,
        );
      // (the per-scenario sequential warm-up below finishes the job)
    }
    log('warmed up every server on every scenario');

    // ---- scenarios ----------------------------------------------------------------------------
    const results: ScenarioResult[] = [];
    for (const scenario of selected) {
      const targets = targetsOf(scenario);
      const hedged = targets.filter((target) => target.hedged);
      const check = await verify(scenario, targets);
      if (!check.verified) for (const problem of check.problems) console.warn(`  ! ${scenario.id}: ${problem}`);
      const designs: ScenarioResult['designs'] = {};
      // Each hedger starts the sequential run as a new process does (no latencies: the warm-up operations
      // teach it), rather than with the latencies of the load runs before, which queueing inflates.
      const hedgeStats = async (): Promise<Record<string, HedgeStats>> =>
        Object.fromEntries(await Promise.all(hedged.map(async (t) => [t.design, await t.server.call<HedgeStats>('hedge-stats')] as const)));
      await Promise.all(hedged.map((target) => target.server.call('hedge-reset')));
      const sequential = await runSequential(
        targets.map((target) => ({ key: target.key, url: target.url, headers: target.headers })),
        scenario.bodies,
        { ops: scenario.ops ?? config.ops, warmupOps: config.warmupOps, label: scenario.id },
        processes,
      );
      const sequentialHedges = await hedgeStats();
      for (const target of targets) {
        const s = sequential.get(target.key) as SequentialResult;
        log(
          `${scenario.id.padEnd(13)} ${target.key.padEnd(18)} requests ${s.requests} waves ${s.waves} items ${s.itemsRead} RCU ${s.rcu} p50 ${s.p50Ms} ms p95 ${s.p95Ms} ms p99 ${s.p99Ms} ms (per DynamoDB request: injected p50 ${s.injectedP50Ms} ms, engine + hop p50 ${s.engineHopP50Ms} ms)`,
        );
      }
      // Throughput: the designs take turns, round after round, so a burst of outside load hits them alike.
      // The hedged servers take the last round only, to keep the benchmark under 3 minutes, after a reset (as a new
      // process) and a warm-up run as long as the measured one (a server's first load run is slower: JIT, heap).
      const rounds = new Map<string, LoadResult[]>(targets.map((t) => [t.key, []]));
      const roundCount = scenario.rounds ?? config.rounds;
      for (let round = 0; round < roundCount; round++) {
        for (const target of targets) {
          if (target.hedged && round < roundCount - 1) continue;
          if (target.hedged) await target.server.call('hedge-reset');
          const load = await runLoad(
            target.url,
            scenario.bodies,
            { ...config, warmupSec: target.hedged ? config.durationSec : 0, headers: target.headers },
            target.server,
            processes,
          );
          rounds.get(target.key)?.push(load);
          log(
            `${scenario.id.padEnd(13)} ${target.key.padEnd(18)} round ${round + 1}: ${load.rps} req/s, server CPU ${load.cpuMsPerOp.server} ms/op, DynamoDB ${load.dynamoRequestsPerOp} req/op, other processes ${load.otherCpuPct ?? '?'}% CPU`,
          );
        }
      }
      const loadHedges = await hedgeStats();
      // --cpu-prof: one more run per design with the server's CPU profiled (kept out of the numbers).
      const profiles: ScenarioResult['profiles'] = {};
      if (config.cpuProf) {
        for (const design of scenario.designs) {
          const path = join(profileDir, `${scenario.id}.${design}.cpuprofile`);
          await servers[design].call('profile-start');
          const load = await runLoad(
            urls[design],
            scenario.bodies,
            { ...config, warmupSec: 0, headers: headersOf[design] },
            servers[design],
            processes,
          );
          await servers[design].call('profile-stop', path);
          const summary = summariseProfile(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, load.completed);
          profiles[design] = {
            file: relative(join(here, '..', '..'), path),
            operations: load.completed,
            busyMsPerOp: round(summary.busyMs / load.completed, 3),
            areas: summary.areas.slice(0, 12).map((a) => ({ name: a.name, msPerOp: round(a.ms / load.completed, 3) })),
            functions: summary.functions.slice(0, 20).map((f) => ({ name: f.name, msPerOp: round(f.ms / load.completed, 4) })),
          };
          console.log(
            `\nCPU profile of the ${design} server, ${scenario.name} (${load.rps} req/s while profiled), ${relative(join(here, '..', '..'), path)}:\n${formatSummary(summary, 20)}\n`,
          );
        }
      }
      const hedgedDesigns: ScenarioResult['designs'] = {};
      const unshardedDesigns: ScenarioResult['designs'] = {};
      for (const target of targets) {
        const runs = rounds.get(target.key) ?? [];
        const best = [...runs].sort((a, b) => b.rps - a.rps)[0] as LoadResult;
        const into = target.hedged ? hedgedDesigns : target.unsharded ? unshardedDesigns : designs;
        into[target.design] = summarise(sequential.get(target.key) as SequentialResult, best, runs);
      }
      // verify() names the server first: `multiTable+hedged answer #0 differs …`.
      const problemsOf = (variant: string) => check.problems.filter((problem) => (/^\w+\+(\w+) /.exec(problem)?.[1] ?? '') === variant);
      results.push({
        id: scenario.id,
        name: scenario.name,
        query: scenario.query,
        verified: problemsOf('').length === 0,
        problems: problemsOf(''),
        designs,
        ratios: scenarioRatios(designs),
        ...(config.cpuProf ? { profiles } : {}),
      });
      if (scenario.hedged) {
        const hedging: HedgingResult = {
          of: scenario.id,
          settings: { ...DEFAULT_HEDGE_SETTINGS },
          sequential: sequentialHedges,
          load: loadHedges,
        };
        results.push({
          id: scenario.hedged.id,
          name: scenario.hedged.name,
          query: scenario.query,
          verified: problemsOf('hedged').length === 0,
          problems: problemsOf('hedged'),
          designs: hedgedDesigns,
          ratios: scenarioRatios(hedgedDesigns),
          hedging,
        });
      }
      if (scenario.unsharded) {
        const { id, name } = scenario.unsharded;
        const problems = problemsOf('unsharded');
        results.push({
          id,
          name,
          query: scenario.query,
          verified: problems.length === 0,
          problems,
          designs: unshardedDesigns,
          ratios: scenarioRatios(unshardedDesigns),
        });
      }
    }

    // ---- growth -------------------------------------------------------------------------------
    const growth: Results['growth'] = [];
    const growthScenario = config.only.length === 0 || config.only.some((word) => 'growth'.includes(word));
    if (growthScenario) {
      for (const size of GROWTH_SIZES) {
        const customer = data.growth.get(size);
        if (!customer) continue;
        const bodies = [body(QUERIES.customer, { id: customer.customer.id })];
        const row: Results['growth'][number] = { orders: size };
        const measured = await runSequential(
          (['singleTable', 'multiTable'] as const).map((design) => ({ key: design, url: urls[design], headers: headersOf[design] })),
          bodies,
          { ops: config.growthOps, warmupOps: 10, label: `growth-${size}` },
          processes,
        );
        for (const [design, s] of measured)
          row[design] = { requests: s.requests, itemsRead: s.itemsRead, rcu: s.rcu, p50Ms: s.p50Ms, p99Ms: s.p99Ms };
        growth.push(row);
        log(
          `growth ${String(size).padStart(6)} orders: single-table items ${row.singleTable?.itemsRead} p50 ${row.singleTable?.p50Ms} ms | multi-table items ${row.multiTable?.itemsRead} p50 ${row.multiTable?.p50Ms} ms`,
        );
      }
    }

    await stopAll();
    const cpu = cpus();
    const output: Results = {
      config: {
        latencyMs: config.latency.medianMs,
        sigma: config.latency.sigma,
        tail: config.latency.tail,
        tailMs: [config.latency.tailMinMs, config.latency.tailMaxMs],
        seed: config.latency.seed,
        sequentialOps: config.ops,
        loadDurationSec: config.durationSec,
        loadRounds: config.rounds,
        connections: config.connections,
        customers: data.customers.length,
        orders: orderCount,
        singleTableItems: singleWrites.length,
        multiTableItems: multiWrites.length,
        rawQuery: probe.shape,
        productExplain: probe.explain,
        machine: {
          cpus: cpu.length,
          model: cpu[0]?.model ?? 'unknown',
          node: process.version,
          memoryGiB: round(totalmem() / 2 ** 30, 1),
          os: `${platform()} ${release()}`,
        },
        date: new Date().toISOString(),
        loadAverage: { before: loadBefore.map((n) => round(n, 2)), after: loadavg().map((n) => round(n, 2)) },
        durationSec: round((Date.now() - startedAt) / 1000, 1),
      },
      scenarios: results,
      growth,
    };
    const markdown = renderMarkdown(output);
    console.log(`\n${markdown}`);
    if (config.write) {
      writeFileSync(join(here, 'results.json'), `${JSON.stringify(output, null, 2)}\n`);
      writeFileSync(join(here, 'RESULTS.md'), markdown);
      log('wrote packages/bench/results.json and packages/bench/RESULTS.md');
    }
    log(`done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  } finally {
    await stopAll();
    rmSync(issuerDir, { recursive: true, force: true });
  }
}

function summarise(s: SequentialResult, load: LoadResult, loadRounds: LoadResult[]) {
  return {
    requests: s.requests,
    waves: s.waves,
    itemsRead: s.itemsRead,
    rcu: s.rcu,
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    rps: load.rps,
    sequential: s,
    load,
    loadRounds,
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
