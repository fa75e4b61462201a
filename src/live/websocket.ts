/**
 * Live updates: GraphQL subscriptions over WebSocket (graphql-ws, the graphql-transport-ws protocol
 * Apollo Client's GraphQLWsLink and urql's subscriptionExchange speak), on the HTTP server's port
 * and path (`/graphql`), fed by the in-process event hub (src/hub/hub.ts).
 *
 * - **Handshake.** An upgrade to any other path is 404; a browser `Origin` the CORS policy
 *   refuses (src/admission/cors.ts) is 403; while shutting down, 503. No Origin (a server-side client) passes.
 * - **Identity.** The token comes in `connection_init`'s payload (`{ Authorization: 'Bearer …' }`
 *   or `{ authorization }`) and is verified by the HTTP server's authenticator. No token or a bad
 *   one closes the socket with 4401 (graphql-ws's `CloseCode.Unauthorized`; its clients do not
 *   retry), and so does the token's expiry (`exp`) on a socket still open then.
 * - **Limits.** At most `maxConnectionsPerPrincipal` sockets per principal (one more: close 1008,
 *   policy violation), `maxSubscriptionsPerConnection` subscriptions per socket (one more: that
 *   subscription's `error`, TOO_MANY_SUBSCRIPTIONS), `maxBufferedEvents` events waiting per
 *   subscription (one more: the slow subscriber's socket is closed with 1013, try again later).
 *   Each operation gets HTTP's admission: the token limit, graphql-armor's rules (depth, aliases,
 *   directives), trusted documents in production; only subscriptions are run here, and each event's
 *   estimated cost is at most `LIMITS.maxEventCost` (GRAPHQL_VALIDATION_FAILED, before any read).
 * - **Paying before reading** (src/live/paid.ts, graphql-ws's `subscribe`): a principal's open
 *   subscriptions hold at most `maxHeldEventCost` per event together (one more: TOO_MANY_SUBSCRIPTIONS);
 *   a subscription's start cost and then each event's cost are taken from the principal's read
 *   bucket, HTTP's, before they read; refused, RATE_LIMITED with nothing read (past the quota an
 *   event ends its subscription), so a refusal never depends on what a read would have found.
 * - **Access.** The fields' rules (src/schema/access.ts) decide before a stream starts.
 * - **Each event** executes with fresh loaders and meter (src/live/paid.ts), so `order` reads
 *   the order as it is now and nothing accumulates over a long subscription.
 * - **Drain.** On stop, every socket is closed with 1001 (going away), and those still open after
 *   the grace period are terminated.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApolloServerPlugin } from '@apollo/server';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ExecutionArgs, GraphQLError, GraphQLFormattedError, GraphQLSchema, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { AuthenticationFailed, IdentityProviderUnavailable, quotaKey, tokenExpiry, type Authenticate, type Principal } from '../auth';
import { createContext, type Context } from '../request/context';
import type { Table } from '../dynamo/table';
import { LIMITS } from '../admission/limits';
import { createAdmission } from '../admission/pipeline';
import { HeldCosts, paidSubscribe } from './paid';
import type { Quotas } from '../admission/quotas';
import { formatClientError, logLevel } from '../errors/format';
import { Code } from '../errors/codes';
import { refusal, withoutHttp } from '../errors/refusal';
import { UNAVAILABLE_MESSAGES } from '../model/errors';
import type { OriginCheck } from '../admission/cors';
import type { TrustedDocuments } from '../admission/documents';
import type { EventHub } from '../hub/hub';
import { LiveConnection, SUBSCRIPTION_DEFAULTS, type SubscriptionSettings } from '../hub/live';

/** The close codes of this server (besides graphql-ws's own protocol codes). */
export const CLOSE = {
  /** No token, or one that does not verify (graphql-ws's `CloseCode.Unauthorized`). */
  unauthorized: CloseCode.Unauthorized,
  /** One connection too many for this principal. */
  tooManyConnections: 1008,
  /** A subscription's consumer fell `maxBufferedEvents` events behind. */
  slowSubscriber: 1013,
  /** The identity provider cannot be reached to check the token: try again later (1013, as for a slow subscriber). */
  tryAgainLater: 1013,
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
  /** The server's per-principal buckets (HTTP's too): a subscription's start and each event pay from them before they read. */
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
  const held = new HeldCosts(settings.maxHeldEventCost);
  // HTTP's admission pipeline, for subscriptions: documents, parse and validation, cost per event.
  const admission = createAdmission({
    transport: 'websocket',
    production,
    trusted: options.trustedDocuments,
    buckets: options.quotas,
    validationRules: options.validationRules,
    writeShards: options.table.writeShards,
  });
  let closing = false;

  options.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (closing) return refuseUpgrade(socket, 503, 'Service Unavailable');
    if (path !== '/graphql') return refuseUpgrade(socket, 404, 'Not Found');
    if (origin !== undefined && !options.cors(origin)) return refuseUpgrade(socket, 403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  useServer<Record<string, unknown> | undefined, Extra>(
    {
      isProd: production,
      // Runs each admitted subscription: held, start and every event paid before they read.
      subscribe: paidSubscribe({ table: options.table, quotas: options.quotas, held, production }),
      async onConnect(ctx) {
        const socket = ctx.extra.socket;
        const authorization = authorizationOf(ctx.connectionParams);
        let principal: Principal;
        try {
          principal = await options.authenticate(authorization);
        } catch (error) {
          // The identity provider is down: not the token's fault, and worth retrying (graphql-ws clients retry 1013, not 4401 or 4500).
          if (error instanceof IdentityProviderUnavailable)
            return refuse(socket, CLOSE.tryAgainLater, UNAVAILABLE_MESSAGES['identity-provider']);
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
        const exp = tokenExpiry(authorization);
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
            withoutHttp(
              refusal(
                Code.TOO_MANY_SUBSCRIPTIONS,
                `Too many subscriptions on this connection: at most ${settings.maxSubscriptionsPerConnection}; complete one first`,
              ),
            ),
          ];
        }
        const principal = ctx.extra.principal as Principal;
        const clientAddress = ctx.extra.request.socket.remoteAddress ?? 'unknown';
        const admitted = admission.subscription(payload, principal, clientAddress, options.schema);
        if ('refused' in admitted) return admitted.refused;
        const contextValue = createContext(options.table, { principal, clientAddress, explain: false, requestId: randomUUID() });
        contextValue.cost = admitted.estimate; // what paidSubscribe holds and takes
        return {
          schema: options.schema,
          document: admitted.document,
          operationName: payload.operationName,
          variableValues: payload.variables ?? {},
          contextValue,
          rootValue: ctx.extra.live,
        };
      },
      // The start has been paid (or refused) by then: see paidSubscribe.
      onOperation(ctx, _id, payload, args) {
        const context = args.contextValue as Context;
        logger.info(
          {
            requestId: context.requestId,
            operationName: payload.operationName ?? null,
            principal: ctx.extra.key,
            cost: context.cost?.cost,
            startCost: context.cost?.startCost,
          },
          'subscription',
        );
        return undefined;
      },
      onNext(_ctx, _id, _payload, args, result) {
        if (!result.errors) return undefined;
        const context = args.contextValue as Context;
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

/** The caller's `Authorization` value from connection_init's payload (either spelling). */
function authorizationOf(params: Record<string, unknown> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' && value !== '' ? value : undefined;
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

/**
 * What a client sees of an error: HTTP's own formatting (src/errors/format.ts: a domain error's message
 * and code, UNAVAILABLE for contention and outages, anything else masked in production, no
 * suggestions), with a request id to find it in the logs. Logged once, here: an internal error at
 * error level, contention and outages at warn, the client's own errors not at all.
 */
function formatError(error: GraphQLError, context: Context | undefined, logger: Logger, production: boolean): GraphQLFormattedError {
  const requestId = context?.requestId ?? randomUUID();
  const shown = formatClientError(error.toJSON(), error, { production, requestId });
  const log = logLevel(error, error.extensions?.code);
  const err = error.originalError ?? error;
  if (log?.level === 'error') logger.error({ requestId, err }, 'subscription failed');
  else if (log?.level === 'warn') logger.warn({ requestId, reason: log.reason, err }, 'subscription unavailable');
  return shown;
}
