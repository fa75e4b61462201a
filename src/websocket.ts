/**
 * Live updates: GraphQL subscriptions over WebSocket (graphql-ws, the graphql-transport-ws protocol
 * Apollo Client's GraphQLWsLink and urql's subscriptionExchange speak), on the HTTP server's port
 * and path (`/graphql`), fed by the in-process event hub (src/events/hub.ts).
 *
 * - **Handshake.** An upgrade to any other path is 404; a browser `Origin` the CORS policy
 *   refuses (src/cors.ts) is 403; while shutting down, 503. No Origin (a server-side client) passes.
 * - **Identity.** The token comes in `connection_init`'s payload (`{ Authorization: 'Bearer …' }`
 *   or `{ authorization }`) and is verified by the HTTP server's authenticator. No token or a bad
 *   one closes the socket with 4401 (graphql-ws's `CloseCode.Unauthorized`; its clients do not
 *   retry), and so does the token's expiry (`exp`) on a socket still open then.
 * - **Limits.** At most `maxConnectionsPerPrincipal` sockets per principal (one more: close 1008,
 *   policy violation), `maxSubscriptionsPerConnection` subscriptions per socket (one more: that
 *   subscription's `error`, TOO_MANY_SUBSCRIPTIONS), `maxBufferedEvents` events waiting per
 *   subscription (one more: the slow subscriber's socket is closed with 1013, try again later).
 *   Each operation gets HTTP's admission: the token limit, graphql-armor's rules (depth, aliases,
 *   directives), the cost bound, trusted documents in production; only subscriptions are run here.
 *   What each event's execution reads is charged to the principal's read quota, the same buckets as
 *   HTTP's; past it, that event is RATE_LIMITED and the subscription ends.
 * - **Access.** The fields' rules (src/schema/access.ts) decide before a stream starts.
 * - **Each event** executes with fresh loaders and meter, so `order` reads the order as it is now
 *   and nothing accumulates over a long subscription.
 * - **Drain.** On stop, every socket is closed with 1001 (going away), and those still open after
 *   the grace period are terminated.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApolloServerPlugin, GraphQLRequest } from '@apollo/server';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import type { Logger } from 'pino';
import { AuthenticationFailed, quotaKey, type Authenticate, type Principal } from './auth';
import { createContext, type Context } from './context';
import type { Table } from './dynamo/table';
import { Meter } from './dynamo/meter';
import { createLoaders } from './loaders';
import { estimateOperation } from './cost';
import { LIMITS, rateLimited } from './limits';
import type { Quotas } from './quotas';
import { formatDomainError, GENERIC_MESSAGE } from './plugins';
import { isDomainError } from './model/errors';
import type { OriginCheck } from './cors';
import { resolveDocument, type TrustedDocuments } from './documents';
import type { EventHub } from './events/hub';
import { LiveConnection, SUBSCRIPTION_DEFAULTS, type SubscriptionSettings } from './events/live';

/** The close codes of this server (besides graphql-ws's own protocol codes). */
export const CLOSE = {
  /** No token, or one that does not verify (graphql-ws's `CloseCode.Unauthorized`). */
  unauthorized: CloseCode.Unauthorized,
  /** One connection too many for this principal. */
  tooManyConnections: 1008,
  /** A subscription's consumer fell `maxBufferedEvents` events behind. */
  slowSubscriber: 1013,
  /** The server is shutting down. */
  goingAway: 1001,
} as const;

export interface LiveServerOptions {
  http: Server;
  schema: GraphQLSchema;
  hub: EventHub;
  table: Table;
  authenticate: Authenticate;
  logger: Logger;
  production: boolean;
  cors: OriginCheck;
  validationRules: readonly ValidationRule[];
  /** The server's per-principal buckets (HTTP's too): each event's reads are charged to them. */
  quotas: Quotas;
  settings?: Partial<SubscriptionSettings> | undefined;
  trustedDocuments?: TrustedDocuments | undefined;
  /** Shutdown: sockets still open this long after their 1001 are terminated. */
  graceMillis: number;
}

type Extra = {
  principal: Principal;
  key: string;
  live: LiveConnection;
  counted: boolean;
  /** Closes the socket when its token expires. */
  expiry: NodeJS.Timeout | undefined;
};

export interface LiveServer {
  /** Apollo plugin: on stop, closes every socket with 1001 (grace, then terminate). */
  plugin: ApolloServerPlugin<Context>;
  /** Open websocket connections. */
  connections(): number;
}

/** Attaches the websocket server to `http`'s upgrades on `/graphql`. */
export function attachLiveServer(options: LiveServerOptions): LiveServer {
  const settings = { ...SUBSCRIPTION_DEFAULTS, ...options.settings };
  const { logger, production } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: LIMITS.maxBodyBytes });
  const perPrincipal = new Map<string, number>();
  let closing = false;

  options.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (closing) return refuseUpgrade(socket, 503, 'Service Unavailable');
    if (path !== '/graphql') return refuseUpgrade(socket, 404, 'Not Found');
    if (origin !== undefined && !options.cors(origin)) return refuseUpgrade(socket, 403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  /** Charges what `context` read since its last charge and gives it a fresh meter; the refusal when the quota cannot pay. */
  const charge = (key: string, context: Context): { errors: GraphQLError[] } | undefined => {
    const read = context.meter.summary().read;
    fresh(context, options.table);
    if (read === 0) return undefined;
    const take = options.quotas.reads.check(key, read);
    if (!take.ok) {
      const refused = rateLimited('read', read, options.quotas.reads.perMinute, take, production);
      const { http: _http, ...extensions } = refused.extensions;
      return { errors: [new GraphQLError(refused.message, { extensions })] };
    }
    options.quotas.reads.take(key, read);
    return undefined;
  };

  useServer<Record<string, unknown> | undefined, Extra>(
    {
      isProd: production,
      async onConnect(ctx) {
        const socket = ctx.extra.socket;
        const authorization = authorizationOf(ctx.connectionParams);
        let principal: Principal;
        try {
          principal = await options.authenticate(authorization);
        } catch (error) {
          if (!(error instanceof AuthenticationFailed)) throw error;
          return refuse(socket, CLOSE.unauthorized, `Unauthorized: ${error.message}`);
        }
        if (principal.kind === 'anonymous')
          return refuse(socket, CLOSE.unauthorized, 'Unauthorized: send { Authorization: "Bearer <token>" } in connection_init');
        const key = quotaKey(principal, ctx.extra.request.socket.remoteAddress ?? 'unknown');
        const open = perPrincipal.get(key) ?? 0;
        if (open >= settings.maxConnectionsPerPrincipal)
          return refuse(
            socket,
            CLOSE.tooManyConnections,
            `Too many connections: at most ${settings.maxConnectionsPerPrincipal} per principal`,
          );
        perPrincipal.set(key, open + 1);
        const live = new LiveConnection(options.hub, {
          maxBuffered: settings.maxBufferedEvents,
          onOverflow: (buffered) => {
            logger.warn({ principal: key, buffered }, 'subscriber too slow: connection closed');
            socket.close(CLOSE.slowSubscriber, `Subscriber too slow: more than ${buffered} events waiting`);
          },
        });
        // A socket lives no longer than its token: at `exp` it is closed with 4401 (the client signs in again).
        const exp = expiryOf(authorization);
        const expiry =
          exp === undefined
            ? undefined
            : setTimeout(
                () => socket.close(CLOSE.unauthorized, 'Unauthorized: token expired'),
                Math.min(exp * 1000 - Date.now(), 2 ** 31 - 1),
              );
        expiry?.unref();
        Object.assign(ctx.extra, { principal, key, live, counted: true, expiry });
        return true;
      },
      onClose(ctx) {
        clearTimeout(ctx.extra.expiry);
        if (!ctx.extra.counted) return;
        ctx.extra.counted = false;
        const left = (perPrincipal.get(ctx.extra.key as string) ?? 1) - 1;
        if (left > 0) perPrincipal.set(ctx.extra.key as string, left);
        else perPrincipal.delete(ctx.extra.key as string);
      },
      onSubscribe(ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] {
        if (Object.keys(ctx.subscriptions).length > settings.maxSubscriptionsPerConnection) {
          return [
            refusal(
              `Too many subscriptions on this connection: at most ${settings.maxSubscriptionsPerConnection}; complete one first`,
              'TOO_MANY_SUBSCRIPTIONS',
            ),
          ];
        }
        const admitted = admit(options, payload);
        if (Array.isArray(admitted)) return admitted;
        const { document, variables } = admitted as { document: DocumentNode; variables: Record<string, unknown> };
        const contextValue = createContext(options.table, {
          principal: ctx.extra.principal as Principal,
          clientAddress: ctx.extra.request.socket.remoteAddress ?? 'unknown',
          explain: false,
          requestId: randomUUID(),
        });
        return {
          schema: options.schema,
          document,
          operationName: payload.operationName,
          variableValues: variables,
          contextValue,
          rootValue: ctx.extra.live,
        };
      },
      // Before the first event and after each: fresh loaders and meter (see the file comment). What
      // the start read (orderUpdated's order) and what each event's execution read are charged to the
      // subscriber's read quota, as HTTP charges an operation's; after the fact (the reads are done,
      // at most the admitted cost), so past the quota the subscription gets RATE_LIMITED and ends.
      onOperation(ctx, _id, payload, args, result) {
        const context = args.contextValue as Context;
        logger.info(
          { requestId: context.requestId, operationName: payload.operationName ?? null, principal: ctx.extra.key },
          'subscription',
        );
        const refused = charge(ctx.extra.key as string, context);
        if (!refused) return undefined;
        if (Symbol.asyncIterator in result && 'return' in result) void result.return(undefined); // leave the hub
        return refused;
      },
      onNext(ctx, id, _payload, args, result) {
        const context = args.contextValue as Context;
        const refused = charge(ctx.extra.key as string, context);
        if (refused) {
          const running = ctx.subscriptions[id];
          if (running && 'return' in running) void running.return(undefined); // graphql-ws then sends `complete`
          return { errors: refused.errors.map((error) => error.toJSON()) };
        }
        if (!result.errors) return undefined;
        return { ...result, errors: result.errors.map((error) => formatError(error, context, logger, production)) };
      },
      onError(_ctx, _id, _payload, errors) {
        return errors.map((error) => formatError(error, undefined, logger, production));
      },
    },
    wss,
  );

  return {
    connections: () => wss.clients.size,
    plugin: {
      async serverWillStart() {
        return {
          async drainServer() {
            closing = true;
            await drain(wss, options.graceMillis);
          },
        };
      },
    },
  };
}

/** Closes every socket with 1001 at once; terminates those still open after `graceMillis`. */
async function drain(wss: WebSocketServer, graceMillis: number): Promise<void> {
  const open = [...wss.clients];
  const closed = open.map(
    (socket) => new Promise<void>((resolve) => (socket.readyState === socket.CLOSED ? resolve() : socket.once('close', () => resolve()))),
  );
  for (const socket of open) socket.close(CLOSE.goingAway, 'Server shutting down');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMillis)))]);
  clearTimeout(timer);
  for (const socket of wss.clients) socket.terminate();
  wss.close();
}

/** HTTP's admission for one websocket operation: the parsed document and coerced variables, or the refusals. */
function admit(
  options: LiveServerOptions,
  payload: {
    query?: string;
    variables?: Record<string, unknown> | null;
    operationName?: string | null;
    extensions?: Record<string, unknown> | null;
  },
): { document: DocumentNode; variables: Record<string, unknown> } | GraphQLError[] {
  const text = documentText(options, payload);
  if (text instanceof GraphQLError) return [text];
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: LIMITS.maxTokens });
  } catch (error) {
    return [refusal((error as Error).message, 'GRAPHQL_PARSE_FAILED')];
  }
  const invalid = validate(options.schema, document, [...specifiedRules, ...options.validationRules]);
  if (invalid.length > 0) return invalid.map((error) => refusal(error.message, 'GRAPHQL_VALIDATION_FAILED'));
  const operation = getOperationAST(document, payload.operationName ?? undefined);
  if (!operation) return [refusal('Name the operation to run (operationName)', 'BAD_REQUEST')];
  if (operation.operation !== 'subscription')
    return [refusal(`Only subscriptions run over WebSocket: send the ${operation.operation} over HTTP (POST)`, 'BAD_REQUEST')];
  const coerced = getVariableValues(options.schema, operation.variableDefinitions ?? [], payload.variables ?? {}, { maxErrors: 1 });
  if (coerced.errors) return [refusal(coerced.errors[0]!.message, 'BAD_USER_INPUT')];
  const estimate = estimateOperation(options.schema, document, operation, coerced.coerced);
  if (estimate.cost > LIMITS.maxCost) {
    return [
      refusal(`Operation too costly: each event may cost ${estimate.cost}, more than ${LIMITS.maxCost}`, 'GRAPHQL_VALIDATION_FAILED'),
    ];
  }
  return { document, variables: payload.variables ?? {} };
}

/** The query text to run, by HTTP's own rule (src/documents.ts): in production with a manifest, only a manifest hash. */
function documentText(
  options: LiveServerOptions,
  payload: { query?: string; extensions?: Record<string, unknown> | null },
): string | GraphQLError {
  // graphql-ws's `query` is required: a client sending a hash alone sends it empty.
  const request: GraphQLRequest = { query: payload.query || undefined, extensions: payload.extensions ?? undefined };
  const refused = resolveDocument(request, options.trustedDocuments, options.production && options.trustedDocuments !== undefined);
  if (refused) return refusal(refused.message, String(refused.extensions.code)); // the same refusal, without HTTP's status
  if (request.query === undefined) return refusal('Send the subscription as query text', 'BAD_REQUEST');
  return request.query;
}

/** The caller's `Authorization` value from connection_init's payload (either spelling). */
function authorizationOf(params: Record<string, unknown> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The `exp` claim (seconds) of a bearer token the authenticator has just verified. */
function expiryOf(authorization: string | undefined): number | undefined {
  const payload = authorization?.replace(/^Bearer\s+/i, '').split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

/** Gives an operation's context a new meter and loaders (nothing cached from the last event). */
function fresh(context: Context, table: Table): void {
  const meter = Meter.counters(); // totals only: the quota reads `summary().read`, nothing explains an event
  context.meter = meter;
  context.table = table.withMeter(meter);
  context.loaders = createLoaders(context.table);
}

/** Closes a socket in onConnect (graphql-ws's own 4403 is then not sent: the first close wins). */
function refuse(socket: WebSocket, code: number, reason: string): false {
  socket.close(code, truncate(reason));
  return false;
}

/** A close reason is at most 123 bytes. */
function truncate(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -2) + '…';
  return out;
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function refusal(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/**
 * What a client sees of an error: a domain error's message and code; a refusal's own code; any
 * other error logged and, in production, masked (with a request id to find it in the logs).
 */
function formatError(error: GraphQLError, context: Context | undefined, logger: Logger, production: boolean): GraphQLFormattedError {
  const formatted = formatDomainError(error.toJSON(), error);
  const strip = (message: string) => (production ? message.replace(/Did you mean ".+"\?/g, '').trim() : message);
  if (isDomainError(error.originalError) || (formatted.extensions?.code !== undefined && !error.originalError)) {
    return { ...formatted, message: strip(formatted.message) };
  }
  const requestId = context?.requestId ?? randomUUID();
  logger.error({ requestId, err: error.originalError ?? error }, 'subscription failed');
  return production
    ? {
        message: GENERIC_MESSAGE,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
      }
    : { ...formatted, extensions: { ...formatted.extensions, code: 'INTERNAL_SERVER_ERROR', requestId } };
}
