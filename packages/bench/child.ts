/**
 * Entry point of the benchmark's child processes (see ipc.ts): `child.ts <role>`, configured by
 * the JSON in BENCH_CHILD_CONFIG.
 *
 * - engine: the embedded engine (@single-table/engine) on a free loopback port;
 * - proxy:  the latency proxy in front of the engine (proxy.ts);
 * - single: the product's own HTTP server (src/http/server `startServer`), production settings, its
 *           SDK client pointed at the proxy, trusting the dev issuer in BENCH_ISSUER_DIR;
 * - multi:  the multi-table baseline server (multi-table/server.ts), SDK client at the proxy;
 *   with `hedge: true` in the config, each server hedges its reads (src/dynamo/hedge.ts: the single
 *   table by `HEDGE=on` through the bootstrap, the baseline with the `Hedger` the same bootstrap makes);
 *   `hedge-reset` forgets what the hedger learnt, `hedge-stats` returns its counts;
 * - raw:    the raw customer-screen endpoint (raw.ts), SDK client at the proxy.
 * With `replay` (a file of replay.ts) in the config, `single` and `raw` get DynamoDB answered from
 * memory instead of an SDK client (`npm run bench:pipeline`, pipeline.ts).
 */
import { join } from 'node:path';
import pino from 'pino';
import { startEngine } from '@single-table/engine';
import {
  startServer,
  authenticatorFor,
  bootstrap,
  type Runtime,
  readConfig,
  readModelSettings,
  Table,
  type Hedger,
} from 'single-table-graphql';
import { serveParent, type Role } from './ipc';
import { startLatencyProxy } from './proxy';
import type { LatencyModel } from './rng';
import { startMultiTableServer } from './multi-table/server';
import { startRawServer, type RawQueryShape } from './raw';
import { replayClient } from './replay';

const role = process.argv[2] as Role;
const config = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? '{}') as {
  endpoint?: string;
  latency?: LatencyModel;
  tableName?: string;
  rawQuery?: RawQueryShape;
  ordersShown?: number;
  hedge?: boolean;
  /** multi: the status index's shards (run.ts passes the configured STATUS_SHARDS, or 1 for the unsharded row). */
  statusShards?: number;
  /** single, raw: DynamoDB answered from this recording (replay.ts), not over the network. */
  replay?: string;
};

/** The IPC calls of a server's hedger (none when it does not hedge). */
function hedgerCalls(hedger: Hedger | undefined): Record<string, () => unknown> {
  return {
    'hedge-reset': () => {
      hedger?.reset();
      return hedger !== undefined;
    },
    'hedge-stats': () => hedger?.stats() ?? null,
  };
}

/** The replay's stand-in for `connect`: a table over the recorded answers (nothing to close). */
function replayed(file: string, tableName = 'app', issuerDir?: string): Runtime {
  const doc = replayClient(file);
  const table = new Table(tableName, doc, { writeShards: readModelSettings().statusShards });
  const config = readConfig(issuerDir === undefined ? {} : { DEV_ISSUER_FILE: join(issuerDir, 'dev-issuer.json') });
  return { config, doc, table, engine: undefined, endpoint: undefined, where: 'replay', ensured: undefined, close: async () => {} };
}

/**
 * The product's bootstrap (src/boot/bootstrap.ts) towards the endpoint run.ts gave this child: the same
 * client, table and model settings (`STATUS_SHARDS` reaches every process) as `npm start`.
 */
function connect(tableName = 'app', issuerDir?: string): Promise<Runtime> {
  return bootstrap(
    readConfig({
      DYNAMODB_ENDPOINT: config.endpoint,
      TABLE_NAME: tableName,
      AWS_REGION: 'us-east-1',
      STATUS_SHARDS: process.env.STATUS_SHARDS,
      // Hedged reads as production runs them (HEDGE=on: the default in production), or off.
      HEDGE: config.hedge ? 'on' : 'off',
      ...(issuerDir === undefined ? {} : { DEV_ISSUER_FILE: join(issuerDir, 'dev-issuer.json') }),
    }),
  );
}

switch (role) {
  case 'engine': {
    const engine = await startEngine({ host: '127.0.0.1', port: 0 });
    serveParent(engine.endpoint, {}, () => engine.close());
    break;
  }
  case 'proxy': {
    if (!config.endpoint || !config.latency) throw new Error('proxy needs endpoint and latency');
    const proxy = await startLatencyProxy({ target: config.endpoint, latency: config.latency });
    serveParent(
      proxy.endpoint,
      {
        records: () => proxy.records(),
        drain: (next?: string | null) => proxy.drain(next),
        operation: (key: string | null) => {
          proxy.operation(key ?? undefined);
          return true;
        },
        reset: (record: boolean) => {
          proxy.reset(Boolean(record));
          return true;
        },
        counters: () => proxy.counters(),
      },
      () => proxy.close(),
    );
    break;
  }
  case 'single': {
    // The dev issuer whose key file run.ts made in BENCH_ISSUER_DIR; its clients send a staff token of it.
    if (!process.env.BENCH_ISSUER_DIR) throw new Error('single needs BENCH_ISSUER_DIR (the dev issuer shared with run.ts)');
    const runtime = config.replay
      ? replayed(config.replay, config.tableName, process.env.BENCH_ISSUER_DIR)
      : await connect(config.tableName, process.env.BENCH_ISSUER_DIR);
    const server = await startServer({
      table: runtime.table,
      authenticate: await authenticatorFor(runtime.config.auth),
      production: true,
      explainInProduction: true, // only the start-up probe sends x-explain: 1
      // One load generator is one principal: the per-principal quotas (src/admission/limits.ts) would turn
      // most of a load run into 429s. Lifted here; the admission work itself is still measured.
      quotas: { readsPerMinute: 1e12, writesPerMinute: 1e12 },
      logger: pino({ level: 'silent' }),
      port: 0,
      host: '127.0.0.1',
    });
    serveParent(server.url, hedgerCalls(runtime.table.hedger), async () => {
      await server.close();
      await runtime.close();
    });
    break;
  }
  case 'multi': {
    const runtime = await connect();
    const hedger = runtime.table.hedger; // the bootstrap's, by HEDGE, as the product's
    const server = await startMultiTableServer({ doc: runtime.doc, hedger, statusShards: config.statusShards });
    serveParent(server.url, hedgerCalls(hedger), async () => {
      await server.close();
      await runtime.close();
    });
    break;
  }
  case 'raw': {
    if (!config.rawQuery) throw new Error('raw needs rawQuery');
    const runtime = config.replay ? replayed(config.replay) : await connect();
    const server = await startRawServer({ doc: runtime.doc, query: config.rawQuery, ordersShown: config.ordersShown ?? 20 });
    serveParent(server.url, {}, async () => {
      await server.close();
      await runtime.close();
    });
    break;
  }
  default:
    throw new Error(`unknown role ${String(role)}`);
}
