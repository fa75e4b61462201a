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
import { AuthenticationFailed, IdentityProviderUnavailable, quotaKey, type Authenticate, type Principal } from '../auth';
import { createContext, type Context } from '../request/context';
import type { Table } from '../dynamo/table';
import { estimateOperation, type OperationEstimate } from '../admission/cost';
import { LIMITS } from '../admission/limits';
import { HeldCosts, paidSubscribe } from './paid';
import type { Quotas } from '../admission/quotas';
import { formatClientError } from '../errors/format';
import { UNAVAILABLE_MESSAGES } from '../model/errors';
import type { OriginCheck } from '../admission/cors';
import { resolveDocument, type TrustedDocuments } from '../admission/documents';
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
        const { document, variables, estimate } = admitted as Admitted;
        const contextValue = createContext(options.table, {
          principal: ctx.extra.principal as Principal,
          clientAddress: ctx.extra.request.socket.remoteAddress ?? 'unknown',
          explain: false,
          requestId: randomUUID(),
        });
        contextValue.cost = estimate; // what paidSubscribe holds and takes
        return {
          schema: options.schema,
          document,
          operationName: payload.operationName,
          variableValues: variables,
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

interface Admitted {
  document: DocumentNode;
  variables: Record<string, unknown>;
  /** Per event (`cost`) and at the start (`startCost`): what paidSubscribe takes (src/live/paid.ts). */
  estimate: OperationEstimate;
}

/** HTTP's admission for one websocket operation: the parsed document, variables and estimate, or the refusals. */
function admit(
  options: LiveServerOptions,
  payload: {
    query?: string;
    variables?: Record<string, unknown> | null;
    operationName?: string | null;
    extensions?: Record<string, unknown> | null;
  },
): Admitted | GraphQLError[] {
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
  // Per event, far below HTTP's maxCost: an event fans out to every subscriber (LIMITS.maxEventCost says why).
  if (estimate.cost > LIMITS.maxEventCost) {
    return [
      refusal(
        options.production
          ? 'Subscription too costly: each event may read more than an event may; select less below the event, and query the rest over HTTP'
          : `Subscription too costly: each event may cost ${estimate.cost}, more than the limit of ${LIMITS.maxEventCost} an event (an upper bound of the items it may read, ${estimate.reads}, plus 1 a resolved object); select less below the event, and query the rest over HTTP`,
        'GRAPHQL_VALIDATION_FAILED',
      ),
    ];
  }
  return { document, variables: payload.variables ?? {}, estimate };
}

/** The query text to run, by HTTP's own rule (src/admission/documents.ts): in production with a manifest, only a manifest hash. */
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
 * What a client sees of an error: HTTP's own formatting (src/http/plugins.ts: a domain error's message
 * and code, UNAVAILABLE for contention and outages, anything else masked in production, no
 * suggestions), with a request id to find it in the logs. Logged once, here: an internal error at
 * error level, contention and outages at warn, the client's own errors not at all.
 */
function formatError(error: GraphQLError, context: Context | undefined, logger: Logger, production: boolean): GraphQLFormattedError {
  const requestId = context?.requestId ?? randomUUID();
  const shown = formatClientError(error.toJSON(), error, { production, requestId });
  const code = shown.extensions?.code;
  const err = error.originalError ?? error;
  if (code === 'INTERNAL_SERVER_ERROR') logger.error({ requestId, err }, 'subscription failed');
  else if (code === 'UNAVAILABLE') logger.warn({ requestId, reason: shown.extensions?.reason, err }, 'subscription unavailable');
  return shown;
}
