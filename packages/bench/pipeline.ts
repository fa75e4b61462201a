/**
 * `npm run bench:pipeline`: what the product's server adds to a customer screen around its one
 * DynamoDB call, with DynamoDB, the SDK and the network taken out of the measurement.
 *
 * The screens' Query answers are recorded once from the embedded engine (replay.ts); then the
 * product's real server (`startServer`, production settings, a staff token of a dev issuer, as in
 * `npm run bench`) and the raw endpoint (raw.ts) run in child processes whose DynamoDB client
 * answers from that recording. Both answer the same screens with the same JSON (checked first).
 * Under autocannon (16 connections), in alternating rounds, each server's CPU per operation is what
 * it spends on HTTP, parsing, validation, admission, execution, loaders, codecs and JSON: in
 * `npm run bench` the same servers also spend the SDK's share, the same for both (flags `--rounds N`,
 * default 5, `--duration S`, default 2; `--cpu-prof`: one more round of each server profiled, where
 * its CPU went printed, the profiles in packages/bench/profiles/pipeline.*.cpuprofile).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createDocumentClient, devClaims, ensureTable, openDevIssuer, readConfig, readModelSettings } from 'single-table-graphql';
import { buildDataSet, singleTableWrites, writeAll } from './data';
import { spawnChild, type ChildHandle, type CpuSample } from './ipc';
import { post, round } from './measure';
import { body, ORDERS_SHOWN, QUERIES } from './scenarios';
import { probeProductQuery, TABLE_NAME } from './probe';
import { recordScreens } from './replay';
import { formatSummary, summariseProfile, type CpuProfile } from './profile';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const flag = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) || fallback : fallback;
};
const rounds = flag('rounds', 5);
const durationSec = flag('duration', 2);
const profiled = process.argv.includes('--cpu-prof');
const CONNECTIONS = 16;

const dir = mkdtempSync(join(tmpdir(), 'bench-pipeline-'));
const children: ChildHandle[] = [];
const spawn = async (...args: Parameters<typeof spawnChild>) => {
  const child = await spawnChild(...args);
  children.push(child);
  return child;
};

/** CPU ms per completed request of `server` under autocannon against `url`, and the request rate. */
async function load(server: ChildHandle, url: string, bodies: readonly string[], headers: Record<string, string>, seconds: number) {
  let next = 0;
  let failed = 0;
  const before = await server.call<CpuSample>('cpu');
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] as string }),
        onResponse: (status, text) => {
          if (status !== 200 || text.includes('"errors"')) failed++;
        },
      },
    ],
  });
  const after = await server.call<CpuSample>('cpu');
  if (failed > 0) throw new Error(`${url}: ${failed} answers were not 200 without errors`);
  const completed = Math.max(1, result.requests.total);
  return {
    cpuMsPerOp: (after.user + after.system - before.user - before.system) / 1000 / completed,
    rps: result.requests.average,
    completed,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  // ---- the recording: the product's own Query (read from its explain extension) for every ordinary customer
  const engine = await spawn('engine');
  const loader = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
  await ensureTable(loader, TABLE_NAME);
  const data = buildDataSet({ customers: 150, seed: 42 });
  await writeAll(loader, singleTableWrites(data, TABLE_NAME, readModelSettings().statusShards));
  const auth = readConfig({ DEV_ISSUER_FILE: join(dir, 'dev-issuer.json') }).auth;
  const token = await (await openDevIssuer(auth.devKeyFile)).sign(devClaims(auth, { staff: true }), 24 * 3600);
  const headers = { authorization: `Bearer ${token}` };
  const issuerEnv = { BENCH_ISSUER_DIR: dir };
  const config = (extra: Record<string, unknown>) => ({ BENCH_CHILD_CONFIG: JSON.stringify({ tableName: TABLE_NAME, ...extra }) });
  const live = await spawn('single', { env: { ...config({ endpoint: engine.endpoint }), ...issuerEnv } });
  const ids = data.ordinary.map((c) => c.customer.id);
  const { shape } = await probeProductQuery(live.endpoint, ids[0]!, headers);
  const recording = join(dir, 'screens.json');
  await recordScreens(loader, shape, ids, recording);
  loader.destroy();

  // ---- the two servers over the recording; the same answers first
  const single = await spawn('single', { env: { ...config({ replay: recording }), ...issuerEnv } });
  const raw = await spawn('raw', { env: config({ replay: recording, rawQuery: shape, ordersShown: ORDERS_SHOWN }) });
  const bodies = ids.map((id) => body(QUERIES.customer, { id }));
  for (const [i, text] of bodies.entries()) {
    const [fromLive, fromSingle, fromRaw] = await Promise.all([
      post(live.endpoint, text, headers),
      post(single.endpoint, text, headers),
      post(raw.endpoint, text),
    ]);
    if (fromSingle.text !== fromLive.text || JSON.stringify(JSON.parse(fromRaw.text)) !== JSON.stringify(JSON.parse(fromLive.text)))
      throw new Error(`customer ${ids[i]}: the replayed answers differ from the live server's`);
  }
  await live.stop();

  const runs = { single: [] as number[], raw: [] as number[] };
  await load(single, single.endpoint, bodies, headers, 1); // warm-up: JIT, caches, the token verified once
  await load(raw, raw.endpoint, bodies, {}, 1);
  for (let r = 0; r < rounds; r++) {
    const a = await load(single, single.endpoint, bodies, headers, durationSec);
    const b = await load(raw, raw.endpoint, bodies, {}, durationSec);
    runs.single.push(a.cpuMsPerOp);
    runs.raw.push(b.cpuMsPerOp);
    console.log(
      `round ${r + 1}: single table ${round(a.cpuMsPerOp, 4)} ms/op (${round(a.rps)} req/s), raw ${round(b.cpuMsPerOp, 4)} ms/op (${round(b.rps)} req/s)`,
    );
  }
  const s = median(runs.single);
  const w = median(runs.raw);
  console.log(
    `Server CPU per customer screen with DynamoDB answered from memory, ${rounds} rounds of ${durationSec} s, ${new Date().toISOString()}`,
  );
  console.log(`single table  ${round(s, 4)} ms/op (median; ${runs.single.map((v) => round(v, 3)).join(', ')})`);
  console.log(`raw           ${round(w, 4)} ms/op (median; ${runs.raw.map((v) => round(v, 3)).join(', ')})`);
  console.log(`the product adds ${round(s - w, 4)} ms per screen to the raw endpoint's own work`);
  if (profiled) {
    const profiles = join(dirname(fileURLToPath(import.meta.url)), 'profiles');
    mkdirSync(profiles, { recursive: true });
    for (const [name, server, url, sent] of [
      ['single', single, single.endpoint, headers],
      ['raw', raw, raw.endpoint, {}],
    ] as const) {
      const file = join(profiles, `pipeline.${name}.cpuprofile`);
      await server.call('profile-start');
      const { completed } = await load(server, url, bodies, sent, durationSec);
      await server.call('profile-stop', file);
      const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
      console.log(`\nCPU profile of the ${name} server (${file}):\n${formatSummary(summariseProfile(profile, completed), 30)}`);
    }
  }
} finally {
  await Promise.all(children.reverse().map((child) => child.stop().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
}
