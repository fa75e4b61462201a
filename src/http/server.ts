/**
 * The HTTP server: Apollo Server 5 behind Node's own `http`, using Apollo's documented
 * integration entry point (`executeHTTPGraphQLRequest`), plus `/health` and `/ready`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { buildSchema } from '../schema';
import { rememberVerified, requestContext, type Context } from '../request/context';
import { CONSISTENCY_HEADER, READ_AFTER_HEADER, sessionFor } from '../request/consistency';
import { armor, LIMITS, QUOTA_DEFAULTS } from '../admission/limits';
import { createQuotas } from '../admission/quotas';
import { GENERIC_MESSAGE } from '../errors/format';
import { Code } from '../errors/codes';
import { applyCors, originMatcher, type OriginCheck } from '../admission/cors';
import { serveExplorer } from '../dev/explorer/serve';
import { EventHub } from '../hub/hub';
import { attachLiveServer } from '../live/websocket';
import { createApollo, type ServerOptions } from './apollo';
import { compiledExecution } from './execution';

export { createApollo, type ServerOptions } from './apollo';

const DEFAULT_GRACE_MILLIS = 5_000;

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  /** The hub the server's subscriptions hear: the relay (or a test) publishes the outbox's events into it. */
  hub: EventHub;
  close(): Promise<void>;
}

/** Starts Apollo and the HTTP server; resolves once it listens. */
export async function startServer(given: ServerOptions & { port: number; host: string }): Promise<RunningServer> {
  // HTTP requests: a client's token is verified once, then remembered until its exp (at most 30 s; context.ts).
  // One session for the process: its principals' recent writes make their next screens strong.
  const options = { ...given, authenticate: rememberVerified(given.authenticate), session: given.session ?? sessionFor(given) };
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
    // A long-running process executes each document many times: compiled once by graphql-jit, it costs less CPU per request.
    compiledExecution,
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
      requestContext(
        options.table,
        options.authenticate,
        options,
        {
          authorization: headers.get('authorization'),
          explainHeader: headers.get('x-explain'),
          readAfter: headers.get(READ_AFTER_HEADER),
          consistency: headers.get(CONSISTENCY_HEADER),
          requestId,
          clientAddress: req.socket.remoteAddress ?? 'unknown',
        },
        options.session,
      ),
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
