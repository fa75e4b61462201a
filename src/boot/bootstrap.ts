/**
 * The one bootstrap: from the configuration (src/boot/config.ts) to a running DynamoDB client, the
 * `Table` and, when asked for, the embedded engine. The server (src/entry/cli/start.ts), Lambda
 * (src/entry/lambda.ts), the tools (src/entry/cli/*.ts) and the benchmark's server (packages/bench/child.ts) all start
 * here, so they reach the table the same way and apply the same settings.
 *
 * Where the table lives: `DYNAMODB_ENDPOINT` when set; otherwise, outside production and when the
 * caller passes `embedded`, an embedded engine (in memory, or on disk in `embedded.path`);
 * otherwise Amazon DynamoDB in `AWS_REGION`. The engine's code is passed in (`embedded.start`,
 * `startEngine` of @single-table/engine) rather than imported, so Lambda's bundle never holds it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from 'pino';
import type { Config } from './config';
import { createDocumentClient } from '../dynamo/client';
import { describeTable, ensureTable, type EnsureResult } from '../dynamo/definition';
import { Table } from '../dynamo/table';
import { Hedger } from '../dynamo/hedge';
import type { EmbeddedEngine, EngineOptions } from '@single-table/engine';
import { createLogger } from './logger';
import { loadTrustedDocuments } from '../admission/trusted-documents';
import type { ServerOptions } from '../http/apollo';

/** `startEngine` of @single-table/engine (packages/engine). */
export type StartEngine = (options: EngineOptions) => Promise<EmbeddedEngine>;

export interface BootstrapOptions {
  /**
   * May start the embedded engine: used when the configuration names no endpoint and is not
   * production. `path` is its LevelDB directory (in memory when undefined).
   */
  embedded?: {
    start: StartEngine;
    path: string | undefined;
    ttlSweepSeconds?: number;
    /** The engine's DynamoDB behaviours (@single-table/engine/profiles), e.g. FAITHFUL for the dev server. */
    behaviour?: Omit<EngineOptions, 'host' | 'port' | 'path' | 'debug'>;
  };
  /** Create the table (GSI1, TTL) where missing; always done on an embedded engine. */
  createTable?: boolean;
  /**
   * When the table is not created here: confirm it exists (one DescribeTable) and fail with a
   * `MissingTableError` when it does not, rather than serve "Requested resource not found" later.
   */
  requireTable?: boolean;
}

/**
 * The table is not there and nobody asked to create it. The message names the two ways to create
 * it; callers show it as it is (src/ops/connect.ts).
 */
export class MissingTableError extends Error {
  constructor(
    readonly tableName: string,
    readonly where: string,
  ) {
    super(
      `table ${tableName} does not exist at ${where}: run npm run table:create with the same environment, or set CREATE_TABLE=1 to have npm start create it`,
    );
    this.name = 'MissingTableError';
  }
}

export interface Runtime {
  config: Config;
  doc: DynamoDBDocumentClient;
  table: Table;
  /** The embedded engine, when this process started one. */
  engine: EmbeddedEngine | undefined;
  /** The endpoint in use; undefined: Amazon DynamoDB in `config.region`. */
  endpoint: string | undefined;
  /** Where the table lives, for humans. */
  where: string;
  /** What `ensureTable` did, when it ran. */
  ensured: EnsureResult | undefined;
  /** Destroys the client, then closes the engine (if any). Idempotent. */
  close(): Promise<void>;
}

export async function bootstrap(config: Config, options: BootstrapOptions = {}): Promise<Runtime> {
  let engine: EmbeddedEngine | undefined;
  let endpoint = config.endpoint;
  if (!endpoint && !config.production && options.embedded) {
    const { start, path, ttlSweepSeconds, behaviour } = options.embedded;
    engine = await start({
      ...behaviour,
      host: '127.0.0.1',
      port: 0,
      debug: config.engineDebug,
      ...(path === undefined ? {} : { path }),
      ...(ttlSweepSeconds === undefined ? {} : { ttlSweepSeconds }),
    });
    endpoint = engine.endpoint;
  }
  const doc = createDocumentClient({ endpoint, region: config.region, credentialsInEnvironment: config.awsCredentialsInEnvironment });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      doc.destroy();
      await engine?.close();
    })());
  const path = options.embedded?.path;
  const where = engine
    ? `embedded engine ${path === undefined ? 'in memory' : `in ${path}`}`
    : (endpoint ?? `Amazon DynamoDB (${config.region})`);
  let ensured: EnsureResult | undefined;
  try {
    if (engine || options.createTable) ensured = await ensureTable(doc, config.tableName);
    else if (options.requireTable && (await describeTable(doc, config.tableName)) === undefined)
      throw new MissingTableError(config.tableName, where);
  } catch (error) {
    await close();
    throw error;
  }
  // One hedger per process (its latency windows and budget), shared by every operation's table.
  const hedger = config.hedging.enabled ? new Hedger(config.hedging.settings) : undefined;
  // The model's settings live on the table: its status index's shard count (STATUS_SHARDS).
  const table = new Table(config.tableName, doc, { hedger, writeShards: config.model.statusShards });
  return { config, doc, table, engine, endpoint, where, ensured, close };
}

/** The logger of the configuration. */
export function loggerFor(config: Config): Logger {
  return createLogger(config.logLevel);
}

/**
 * What the Apollo server takes from the configuration, the same for the HTTP server and Lambda
 * (CORS is API Gateway's there; the setting is simply unused).
 */
export function serverSettings(config: Config): Omit<ServerOptions, 'table' | 'authenticate' | 'logger'> {
  return {
    production: config.production,
    explainInProduction: config.explainInProduction,
    introspectionInProduction: config.introspectionInProduction,
    debugErrors: config.debugErrors,
    corsOrigins: config.corsOrigins,
    quotas: config.quotas,
    stopGracePeriodMillis: config.shutdownGraceMillis,
    subscriptions: config.subscriptions,
    ...(config.readYourWritesMs === undefined ? {} : { readYourWritesMs: config.readYourWritesMs }),
    ...(config.trustedDocuments ? { trustedDocuments: loadTrustedDocuments(config.trustedDocuments) } : {}),
  };
}
