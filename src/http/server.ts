/**
 * The HTTP server: Apollo Server 5 behind Node's own `http`, using Apollo's documented
 * integration entry point (`executeHTTPGraphQLRequest`), plus `/health` and `/ready`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { buildSchema } from '../schema';
import { compiledExecution } from './execution';
import { rememberVerified, requestContext, type Context } from '../request/context';
import type { Authenticate } from '../auth';
import type { Table } from '../dynamo/table';
import { armor, LIMITS, QUOTA_DEFAULTS, type QuotaSettings } from '../admission/limits';
import { createAdmission } from '../admission/pipeline';
import { admissionPlugin } from './admission';
import { createQuotas, type Quotas } from '../admission/quotas';
import { explainPlan, logOperations, maskInternalErrors, noStore } from './plugins';
import { formatClientError, GENERIC_MESSAGE } from '../errors/format';
import { Code } from '../errors/codes';
import type { TrustedDocuments } from '../admission/documents';
import { applyCors, originMatcher, type OriginCheck } from '../admission/cors';
import { serveExplorer } from '../dev/explorer/serve';
import { EventHub } from '../hub/hub';
import type { SubscriptionSettings } from '../hub/live';
import { attachLiveServer } from '../live/websocket';

export interface ServerOptions {
  table: Table;
  /** Turns a request's Authorization header into its principal (src/auth). */
  authenticate: Authenticate;
  production: boolean;
  /** Honour `x-explain: 1` in production too. */
  explainInProduction?: boolean;
  logger: Logger;
  /** Introspection in production (always on in development). */
  introspectionInProduction?: boolean;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /** Browser origins allowed by CORS (src/admission/cors.ts); none when absent. */
  corsOrigins?: readonly string[];
  /** Per-principal quotas (src/admission/settings.ts; taken by src/admission/pipeline.ts), over `QUOTA_DEFAULTS`. */
  quotas?: Partial<QuotaSettings>;
  /** The buckets of those quotas, when shared with another transport (the server's websockets); made from `quotas` when absent. */
  buckets?: Quotas;
  /** A persisted-documents manifest (src/admission/documents.ts): production then runs only these. */
  trustedDocuments?: TrustedDocuments;
  /** On close, how long requests in flight may take before their connections are closed (default 5 s). */
  stopGracePeriodMillis?: number;
  /** The event hub live subscriptions hear (src/hub/hub.ts); a new one when absent. The relay publishes into it. */
  hub?: EventHub;
  /** Live updates' limits (src/hub/live.ts), over `SUBSCRIPTION_DEFAULTS`. */
  subscriptions?: Partial<SubscriptionSettings>;
}

const DEFAULT_GRACE_MILLIS = 5_000;

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  /** The hub the server's subscriptions hear: the relay (or a test) publishes the outbox's events into it. */
  hub: EventHub;
  close(): Promise<void>;
}

/**
 * The Apollo server of the product, for any transport (node:http here, AWS Lambda in lambda.ts).
 * Production: no landing page, introspection off unless configured, no stack traces, no field
 * suggestions, internal errors masked. Batched HTTP requests are off in every mode. Apollo's own
 * landing page is off in every mode: in development the HTTP server answers a browser's GET with
 * the offline explorer instead (src/dev/explorer, before Apollo sees the request).
 */
export function createApollo(
  options: ServerOptions,
  transportPlugins: ApolloServerPlugin<Context>[] = [],
  where: 'server' | 'lambda' = 'server',
  schema: GraphQLSchema = buildSchema(),
): ApolloServer<Context> {
  const protection = armor(options.production);
  return new ApolloServer<Context>({
    // Queries and mutations run compiled (src/http/execution.ts); Apollo still parses, validates and admits them.
    gateway: compiledExecution(schema),
    introspection: !options.production || options.introspectionInProduction === true,
    includeStacktraceInErrorResponses: !options.production,
    hideSchemaDetailsFromClientErrors: options.production,
    allowBatchedHttpRequests: false,
    // The process entry point owns SIGTERM/SIGINT (src/entry/cli/start.ts, once): it calls close(), which
    // drains the HTTP server (the drain plugin, with a grace period), stops Apollo, then the engine.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: LIMITS.maxTokens },
    validationRules: protection.validationRules,
    // One formatter for every transport (src/http/plugins.ts): domain codes, UNAVAILABLE for outages, masking.
    formatError: (formatted, error) => formatClientError(formatted, error, { production: options.production }),
    plugins: [
      ...transportPlugins,
      // The one admission pipeline (src/admission/pipeline.ts): documents, transport (subscriptions run over
      // WebSocket only, src/live/websocket.ts), variables and cost, sign-in, limits, quotas; before anything executes.
      admissionPlugin(
        createAdmission({
          transport: where,
          production: options.production,
          trusted: options.trustedDocuments,
          buckets: options.buckets ?? createQuotas({ ...QUOTA_DEFAULTS, ...options.quotas }),
          writeShards: options.table.writeShards,
        }),
      ),
      // Without a landing-page plugin Apollo would add its CDN-loaded Sandbox in development.
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints in this schema: skip the per-field instrumentation of Apollo's cache control.
      ApolloServerPluginCacheControlDisabled(),
      ...protection.plugins,
      logOperations(options.logger),
      maskInternalErrors(),
      explainPlan(),
      noStore(),
    ],
  });
}

/** Starts Apollo and the HTTP server; resolves once it listens. */
export async function startServer(given: ServerOptions & { port: number; host: string }): Promise<RunningServer> {
  // HTTP requests: a client's token is verified once, then remembered until its exp (at most 30 s; context.ts).
  const options = { ...given, authenticate: rememberVerified(given.authenticate) };
  const cors = originMatcher(options.corsOrigins ?? []);
  const ready = async () => {
    await options.table.get({ Key: { PK: 'HEALTH#READY', SK: 'HEALTH' } });
  };
  let closing = false;
  let stopped: Promise<void> | undefined;
  const http = createServer((req, res) => {
    if (closing) {
      // Shutting down: a request that still arrives on a kept-alive connection is turned away.
      res.setHeader('Connection', 'close');
      return sendJson(res, 503, { errors: [{ message: 'server is shutting down', extensions: { code: Code.SERVICE_UNAVAILABLE } }] });
    }
    res.on('finish', () => {
      if (closing) req.socket.destroySoon();
    });
    handle(apollo, options, ready, cors, req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, 'request handling failed');
      if (!res.headersSent)
        sendJson(res, 500, { errors: [{ message: GENERIC_MESSAGE, extensions: { code: Code.INTERNAL_SERVER_ERROR } }] });
      else res.destroy();
    });
  });
  const schema = buildSchema();
  const grace = options.stopGracePeriodMillis ?? DEFAULT_GRACE_MILLIS;
  const hub =
    options.hub ??
    new EventHub({ onListenerError: (err, event) => options.logger.error({ err, eventId: event.eventId }, 'listener failed') });
  // One set of quota buckets for both transports: a principal's subscription events spend its HTTP quota.
  const buckets = options.buckets ?? createQuotas({ ...QUOTA_DEFAULTS, ...options.quotas });
  // Live updates: graphql-ws on upgrades of /graphql (src/live/websocket.ts), with HTTP's admission rules.
  const live = attachLiveServer({
    http,
    schema,
    hub,
    table: options.table,
    authenticate: options.authenticate,
    logger: options.logger,
    production: options.production,
    cors,
    validationRules: armor(options.production).validationRules,
    quotas: buckets,
    settings: options.subscriptions,
    trustedDocuments: options.trustedDocuments,
    graceMillis: grace,
  });
  // On stop, first the websockets close with 1001 (before the HTTP drain ends their raw sockets);
  // then Apollo's drain plugin: idle connections close at once, busy ones once answered, and after
  // the grace period every connection is destroyed, so one hung request cannot hold shutdown.
  const apollo = createApollo(
    { ...options, buckets },
    [live.plugin, ApolloServerPluginDrainHttpServer({ httpServer: http, stopGracePeriodMillis: grace })],
    'server',
    schema,
  );
  await apollo.start();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost === '0.0.0.0' ? 'localhost' : shownHost}:${port}/graphql`,
    port,
    http,
    hub,
    /**
     * Graceful: stops accepting, lets in-flight requests finish (at most the grace period), then
     * stops Apollo. Idempotent: every caller waits for the same stop.
     */
    close() {
      closing = true;
      return (stopped ??= apollo.stop());
    },
  };
}

async function handle(
  apollo: ApolloServer<Context>,
  options: ServerOptions,
  ready: () => Promise<void>,
  cors: OriginCheck,
  req: IncomingMessage,
  res: ServerResponse,
) {
  if (applyCors(cors, req, res)) return; // a preflight, answered
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
  if (url.pathname === '/ready') {
    try {
      await ready();
      return sendJson(res, 200, { status: 'ready' });
    } catch (error) {
      options.logger.warn({ err: error }, 'table not reachable');
      return sendJson(res, 503, { status: 'unavailable' });
    }
  }
  // Development: the explorer page, its bundle and GET /dev/partition; 404 in production like any unknown path.
  if (!options.production && (await serveExplorer({ table: options.table, authenticate: options.authenticate }, req, res, url))) return;
  if (url.pathname !== '/graphql' && url.pathname !== '/') return sendJson(res, 404, { error: 'not found' });

  const limit = options.maxBodyBytes ?? LIMITS.maxBodyBytes;
  const body = await readBody(req, limit);
  if (body === undefined) {
    // Answer at once and drop the connection: the rest of the body is never read.
    res.setHeader('Connection', 'close');
    res.on('finish', () => req.destroy());
    return sendJson(res, 413, { errors: [{ message: `request body larger than ${limit} bytes`, extensions: { code: Code.BAD_REQUEST } }] });
  }
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // A caller's request id is kept when it is a plain token, so logs can be joined across services.
  const given = headers.get('x-request-id');
  const requestId = given && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : randomUUID();
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: (req.method ?? 'GET').toUpperCase(),
      headers,
      search: url.search,
      body: parseBody(body, headers.get('content-type')),
    },
    context: () =>
      requestContext(options.table, options.authenticate, options, {
        authorization: headers.get('authorization'),
        explainHeader: headers.get('x-explain'),
        requestId,
        clientAddress: req.socket.remoteAddress ?? 'unknown',
      }),
  });
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.setHeader('x-request-id', requestId);
  // noStore() covers Apollo's pipeline; this covers the answers Apollo makes outside it (a malformed body).
  if (!res.hasHeader('cache-control')) res.setHeader('cache-control', 'no-store');
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}

function parseBody(body: string, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  if (contentType?.startsWith('application/json') || contentType?.startsWith('application/graphql-response+json')) {
    try {
      return JSON.parse(body);
    } catch {
      return body; // Apollo answers a malformed body with 400
    }
  }
  return body;
}

/** The body as text, or undefined as soon as it is known to pass `limit` bytes (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}
