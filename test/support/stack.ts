/**
 * The real stack for integration tests: the embedded engine on a free loopback port, the table,
 * and the real HTTP GraphQL server over it, through the real AWS SDK. `gql` sends GraphQL over
 * HTTP; `engine.wire` counts the DynamoDB requests that reached the engine.
 */
import pino from 'pino';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEngine, type EmbeddedEngine, type EngineOptions, type WireRequest } from '@single-table/engine';
import { CERTAIN_STALENESS, STRONG, type EngineBehaviour } from '@single-table/engine/profiles';
import { createDocumentClient } from '../../src/dynamo/client';
import { ensureTable } from '../../src/dynamo/definition';
import { Table, type Item } from '../../src/dynamo/table';
import { guarded } from '../../src/model';
import { startServer, type RunningServer } from '../../src/http/server';
import { bearer, testAuthenticator, tokens } from './auth';
import type { Authenticate } from '../../src/auth';
import type { QuotaSettings } from '../../src/admission/limits';
import type { Quotas } from '../../src/admission/quotas';
import type { TrustedDocuments } from '../../src/admission/documents';
import type { EventHub } from '../../src/hub/hub';
import type { SubscriptionSettings } from '../../src/hub/live';
import type { SessionConsistency } from '../../src/request/consistency';

export interface GraphQLResponse<T = any> {
  status: number;
  data?: T;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, any> }>;
  extensions?: Record<string, any>;
  headers: Headers;
}

export interface Stack {
  engine: EmbeddedEngine;
  server: RunningServer;
  doc: DynamoDBDocumentClient;
  table: Table;
  tableName: string;
  /** The server's event hub (`server.hub`): a test publishes outbox events into it, as the relay does. */
  hub: EventHub;
  /**
   * Sends GraphQL over HTTP as staff (a dev-issuer token), unless `headers.authorization` says
   * otherwise (`''` sends none: anonymous).
   */
  gql<T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResponse<T>>;
  /** Sends one operation and returns its response with the DynamoDB requests it caused on the wire. */
  measure<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<{ response: GraphQLResponse<T>; wire: WireRequest[] }>;
  /**
   * Waits for "eventually", as a client of DynamoDB would: resolves once every acknowledged write
   * shows in the GSIs and no eventually consistent read can return a previous version (at once on
   * a strong engine). Call it where a test reads, through an index or an eventual read, what it
   * has just written; never to hide a product read that must see its own writes.
   */
  settled(): Promise<void>;
  /** Every item of the table as it is (a strongly consistent Scan), for before/after comparisons. */
  items(): Promise<Item[]>;
  /**
   * Writes items straight to the table, 25 a BatchWriteItem (`Table.putAll`, `UnprocessedItems`
   * retried), `streams` calls in flight (default 1), for large fixtures. Every item passes the
   * write guards, unless `guard: false`: only for fixtures that are corrupt on purpose. Resolves
   * once the items are settled (`settled()`): a fixture is data that was there before the test, and
   * the screens read eventually unless their principal wrote (docs/consistency.md).
   */
  load(items: Item[], options?: LoadOptions): Promise<void>;
  close(): Promise<void>;
}

export interface LoadOptions {
  /** BatchWriteItem calls in flight (default 1). */
  streams?: number;
  /** `false` writes without the write guards: a deliberately corrupt fixture (e.g. for the doctor). */
  guard?: false;
}

export interface StackOptions {
  production?: boolean;
  /** Development error responses with their stack traces (`DEBUG_ERRORS=1`). */
  debugErrors?: boolean;
  explainInProduction?: boolean;
  introspectionInProduction?: boolean;
  /** Where the server's JSON log lines go (silent when absent). */
  log?: (line: Record<string, unknown>) => void;
  tableName?: string;
  /** How the server authenticates (default: the dev issuer of test/support/auth.ts). */
  authenticate?: Authenticate;
  /** Browser origins the server allows (CORS); none when absent. */
  corsOrigins?: readonly string[];
  /**
   * Per-principal quotas (src/admission/settings.ts). Default: practically unlimited, so suites that send
   * many operations as one staff token are not throttled; quota tests pass small ones.
   */
  quotas?: Partial<QuotaSettings>;
  /** The quota buckets themselves (`createQuotas(settings, { now })`: a test's own clock); made from `quotas` when absent. */
  buckets?: Quotas;
  /** A trusted-documents manifest (src/admission/documents.ts). */
  trustedDocuments?: TrustedDocuments;
  /** Live updates' limits (src/hub/live.ts). */
  subscriptions?: Partial<SubscriptionSettings>;
  /** Shutdown grace period of the server (`SHUTDOWN_GRACE_MS`). */
  stopGracePeriodMillis?: number;
  /**
   * The engine's DynamoDB behaviours, over `DEFAULT_ENGINE` (e.g. `conflictChance`, `gsiLagMs`).
   * `strong: true` starts from STRONG instead (no lag, no stale reads, no conflicts): for a test
   * that needs the deterministic engine, with a comment saying why.
   */
  engine?: StackEngineOptions;
  /** The server's read-your-writes session (src/request/consistency.ts): a test's own window or clock; the server's default when absent. */
  session?: SessionConsistency;
  /** The table's status-index shard count (`TableOptions.writeShards`, as `STATUS_SHARDS` sets it); the default when absent. */
  writeShards?: number;
}

export type StackEngineOptions = EngineBehaviour & { strong?: boolean };

/**
 * The engine every stack runs on unless a test says otherwise: @single-table/engine/profiles'
 * CERTAIN_STALENESS, FAITHFUL (GSI lag, eventual and read-committed reads, conflicts; seeded, so a
 * run is repeatable; as `npm start` and `npm run engine` run it) with every read inside a stale
 * window stale, so a path that would read stale data in production fails here every time. Tests
 * that read their own write through an index or eventually wait for `stack.settled()`, as a client
 * waits for "eventually".
 */
export const DEFAULT_ENGINE: StackEngineOptions = CERTAIN_STALENESS;

function engineOptions(options: StackEngineOptions = {}): EngineOptions {
  const { strong, ...explicit } = options;
  return { ...(strong ? STRONG : DEFAULT_ENGINE), ...explicit };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const engine = await startEngine({ host: '127.0.0.1', port: 0, ...engineOptions(options.engine) });
  const tableName = options.tableName ?? 'app';
  const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
  await ensureTable(doc, tableName);
  const table = new Table(tableName, doc, options.writeShards === undefined ? {} : { writeShards: options.writeShards });
  const staffHeaders = bearer(await tokens.staff());
  const server = await startServer({
    table,
    authenticate: options.authenticate ?? (await testAuthenticator()),
    production: options.production ?? false,
    debugErrors: options.debugErrors ?? false,
    explainInProduction: options.explainInProduction ?? false,
    introspectionInProduction: options.introspectionInProduction ?? false,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    quotas: options.quotas ?? { readsPerMinute: 1e12, writesPerMinute: 1e12 },
    ...(options.buckets ? { buckets: options.buckets } : {}),
    ...(options.trustedDocuments ? { trustedDocuments: options.trustedDocuments } : {}),
    ...(options.session ? { session: options.session } : {}),
    ...(options.subscriptions ? { subscriptions: options.subscriptions } : {}),
    ...(options.stopGracePeriodMillis !== undefined ? { stopGracePeriodMillis: options.stopGracePeriodMillis } : {}),
    logger: options.log
      ? pino({ level: 'info' }, { write: (line: string) => options.log!(JSON.parse(line)) })
      : pino({ level: process.env.LOG_LEVEL ?? 'silent' }),
    port: 0,
    host: '127.0.0.1',
  });

  const gql = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: withoutEmpty({ 'content-type': 'application/json', ...staffHeaders, ...headers }),
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as Omit<GraphQLResponse, 'status' | 'headers'>;
    return { status: res.status, headers: res.headers, ...body };
  };

  return {
    engine,
    server,
    doc,
    table,
    tableName,
    hub: server.hub,
    gql,
    async measure(query, variables, headers) {
      engine.wire.reset();
      const response = await gql(query, variables, headers);
      return { response, wire: engine.wire.requests() };
    },
    async settled() {
      await Promise.all([engine.indexesSettled(), engine.readsSettled()]);
    },
    async items() {
      const all: Item[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await table.scan({ ExclusiveStartKey: start, ConsistentRead: true });
        all.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
      return all;
    },
    async load(items, options = {}) {
      const target = options.guard === false ? table.withGuard(undefined) : guarded(table);
      await target.putAll(items, { concurrency: options.streams ?? 1 });
      await Promise.all([engine.indexesSettled(), engine.readsSettled()]);
    },
    async close() {
      await server.close();
      doc.destroy();
      await engine.close();
    },
  };
}

/** Drops headers given as '' (a test's way to send none). */
function withoutEmpty(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ''));
}

/** The operations of a wire log, e.g. ['Query', 'BatchGetItem']. */
export function operations(wire: readonly WireRequest[]): string[] {
  return wire.map((request) => request.operation);
}
