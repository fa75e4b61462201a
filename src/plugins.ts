/**
 * Apollo plugins of the product, each one concern: operation logs, masking internal errors, and
 * the `extensions.dynamodb` plan. Order matters only in that masking runs before the response
 * leaves; none of them changes what is executed.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLFormattedError,
  type SelectionSetNode,
} from 'graphql';
import { unauthenticated } from './context';
import type { Logger } from 'pino';
import type { Context } from './context';
import { ErrorCode, HTTP_STATUS, isDomainError, UNAVAILABLE_MESSAGES, type UnavailableReason } from './model/errors';
import { transientFault } from './dynamo/errors';
import { LIMITS } from './limits';
import { entityOf } from './model/entities';

export const GENERIC_MESSAGE = 'Internal server error';

/**
 * One JSON log line per operation (request id, operation name, duration, DynamoDB requests, waves,
 * items, capacity, hedged reads), and each internal error logged in full, once, with its request id.
 */
export function logOperations(logger: Logger): ApolloServerPlugin<Context> {
  return {
    // The context function failed (src/context.ts): a refused token is the client's; the identity
    // provider unavailable is an outage (warn); anything else is ours. Logged here, once.
    async contextCreationDidFail({ error }) {
      const extensions: Record<string, unknown> = error instanceof GraphQLError ? error.extensions : {};
      if (extensions.code === ErrorCode.UNAUTHENTICATED) return;
      if (extensions.code !== ErrorCode.UNAVAILABLE) return void logger.error({ err: rootCause(error) }, 'context creation failed');
      logger.warn({ requestId: extensions.requestId, reason: extensions.reason, err: rootCause(error) }, 'request unavailable');
    },
    async requestDidStart() {
      const startedAt = performance.now();
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          for (const error of errors) {
            const original = rootCause(error);
            const code = error.extensions?.code;
            const outage = unavailability(original, code);
            // Contention and outages: expected under load or while DynamoDB is away, not a bug.
            if (outage)
              logger.warn(
                { requestId: contextValue.requestId, operationName, reason: outage.reason, err: original },
                'operation unavailable',
              );
            // Domain errors and request errors (parse, validation, coercion) are the client's, not ours.
            if (outage || isDomainError(original) || (code !== undefined && code !== 'INTERNAL_SERVER_ERROR')) continue;
            logger.error({ requestId: contextValue.requestId, operationName, err: original }, 'operation failed');
          }
        },
        async willSendResponse({ response, contextValue, operationName }) {
          if (!logger.isLevelEnabled('info')) return; // the line would be dropped: not built either
          const summary = contextValue.meter.summary();
          logger.info(
            {
              requestId: contextValue.requestId,
              operationName: operationName ?? null,
              durationMs: Math.round((performance.now() - startedAt) * 100) / 100,
              dynamodb: {
                requests: summary.requests,
                waves: summary.waves,
                items: summary.items,
                read: summary.read,
                capacity: summary.capacity,
                // Hedged reads (src/dynamo/hedge.ts): copies sent (included in `requests`, and in `capacity` as
                // their winners' capacity, an upper bound) and how many of them answered first.
                hedges: summary.hedges,
                hedgesWon: summary.hedgesWon,
              },
              // What it was admitted with (src/cost.ts): `reads` bounds `dynamodb.read`.
              ...(contextValue.cost
                ? { cost: { estimate: contextValue.cost.cost, reads: contextValue.cost.reads, writes: contextValue.cost.writes } }
                : {}),
              errors: response.body.kind === 'single' ? (response.body.singleResult.errors?.length ?? 0) : 0,
            },
            'operation',
          );
        },
      };
    },
  };
}

/**
 * After `formatClientError` (Apollo's `formatError`): every INTERNAL_SERVER_ERROR and UNAVAILABLE
 * carries the request id, and a response holding an UNAVAILABLE is HTTP 503 with `Retry-After`
 * (the largest `retryAfterSeconds` of its errors), so a client or proxy that retries on 503 does.
 */
export function maskInternalErrors(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          const result = response.body.singleResult;
          let retryAfter = 0;
          result.errors = result.errors!.map((error) => {
            const code = error.extensions?.code;
            if (code !== 'INTERNAL_SERVER_ERROR' && code !== ErrorCode.UNAVAILABLE) return error;
            if (code === ErrorCode.UNAVAILABLE) retryAfter = Math.max(retryAfter, Number(error.extensions?.retryAfterSeconds) || 1);
            return { ...error, extensions: { ...error.extensions, requestId: contextValue.requestId } };
          });
          if (retryAfter > 0) {
            response.http.status = HTTP_STATUS.UNAVAILABLE;
            response.http.headers.set('retry-after', String(retryAfter));
          }
        },
      };
    },
  };
}

/** `extensions.dynamodb`: the requests the operation made, their waves and totals, when asked for. */
export function explainPlan(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single' || !contextValue.explain) return;
          const summary = contextValue.meter.summary();
          const result = response.body.singleResult;
          result.extensions = {
            ...result.extensions,
            dynamodb: {
              requests: contextValue.meter.records().map((r) => ({
                operation: r.operation,
                index: r.index ?? null,
                keyCondition: r.keyCondition ?? null,
                partition: r.partition ?? null,
                // The keys of what it returned or wrote (the explorer's Table view highlights them): keys, GSI1 keys,
                // type and the entity claiming them, nothing else of the items. The caller's own reads: a read
                // that found what the caller may not see drops the whole plan (hidePlan, src/schema/access.ts).
                keys: (r.keys ?? []).map((key) => ({ ...key, entity: entityOf({ ...key })?.name ?? null })),
                items: r.items,
                scanned: r.scanned,
                consumedCapacity: r.capacity,
                wave: r.wave,
                ms: Math.round((r.endedAt - r.startedAt) * 100) / 100,
                ...(r.error ? { error: r.error } : {}),
                // A hedged read (src/dynamo/hedge.ts) is 2 requests on the wire; `winner` answered first and the other
                // was aborted, so `consumedCapacity` counts the winner's twice: an upper bound, the loser's being unknown.
                hedged: r.hedge !== undefined,
                ...(r.hedge ? { hedge: { winner: r.hedge.winner, requests: 2, consumedCapacity: 'upper bound' } } : {}),
              })),
              waves: summary.waves,
              totals: {
                requests: summary.requests,
                items: summary.items,
                scanned: summary.scanned,
                consumedCapacity: summary.capacity,
                hedges: summary.hedges,
              },
            },
            // What the operation was admitted with (src/cost.ts): `reads` bounds `totals.scanned` of the reads.
            ...(contextValue.cost
              ? { cost: { estimate: contextValue.cost.cost, reads: contextValue.cost.reads, writes: contextValue.cost.writes } }
              : {}),
          };
        },
      };
    },
  };
}

/**
 * `Cache-Control: no-store` on every GraphQL response: answers carry one caller's data, and no
 * shared cache (CDN, proxy) or browser may keep them. Set last, over any header Apollo set.
 */
export function noStore(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}

/**
 * Anonymous callers get no data: an operation of theirs that selects any root field but the
 * introspection ones (`__schema`, `__type`, `__typename`) is refused before it executes, with
 * HTTP 401 and `UNAUTHENTICATED`. Introspection alone passes (it is off in production anyway).
 */
export function requireSignIn(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, document }) {
          if (contextValue.principal.kind !== 'anonymous' || !operation) return;
          const fragments = new Map(
            document.definitions
              .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
              .map((fragment) => [fragment.name.value, fragment]),
          );
          if (selectsData(operation.selectionSet, fragments, new Set())) {
            throw unauthenticated('sign in first: send Authorization: Bearer <token>');
          }
        },
      };
    },
  };
}

function selectsData(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return !selection.name.value.startsWith('__');
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsData(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(fragment.name.value)) return false;
    seen.add(fragment.name.value);
    return selectsData(fragment.selectionSet, fragments, seen);
  });
}

/**
 * Why an error makes its request UNAVAILABLE: the model's `unavailable(...)`, or a transient
 * DynamoDB fault (src/dynamo/errors.ts) that reached the top with no code of its own. `code` is
 * the GraphQL error's (an error that has its own, such as the identity provider's, keeps it).
 */
export function unavailability(error: unknown, code: unknown): { reason: UnavailableReason; retryAfterSeconds: number } | undefined {
  const original = rootCause(error);
  if (isDomainError(original)) {
    return original.code === ErrorCode.UNAVAILABLE
      ? { reason: original.reason ?? 'unreachable', retryAfterSeconds: original.retryAfterSeconds ?? 1 }
      : undefined;
  }
  return code === undefined || code === 'INTERNAL_SERVER_ERROR' ? transientFault(original) : undefined;
}

/** The error a GraphQLError wraps, however deep (a resolver's, or the context function's). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; current instanceof GraphQLError && current.originalError && depth < 5; depth++) current = current.originalError;
  return current;
}

/** graphql's suggestions ("Did you mean "x"?", "Did you mean the enum value "Y"?") map the schema: not shown in production. */
export function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean\b[^?]*\?/g, '').trim();
}

export interface ErrorFormatting {
  production: boolean;
  /** Shown on INTERNAL_SERVER_ERROR and UNAVAILABLE (HTTP adds it in `maskInternalErrors`). */
  requestId?: string | undefined;
}

/**
 * What a client sees of any error, on every transport (Apollo's `formatError` for HTTP and Lambda,
 * src/websocket.ts's `formatError`): a domain error keeps its message and stable code (UNAVAILABLE
 * with `retryable`, `retryAfterSeconds`, `reason`); a transient DynamoDB fault (throttled,
 * unreachable, exhausted conflicts: src/dynamo/errors.ts) becomes UNAVAILABLE with a generic,
 * stable message; any other error without a code of its own is INTERNAL_SERVER_ERROR, generic
 * in production; in production no message carries graphql's suggestions.
 */
export function formatClientError(
  formatted: GraphQLFormattedError,
  error: unknown,
  // Masked unless told otherwise: forgetting the option can only hide details, never show them.
  options: ErrorFormatting = { production: true },
): GraphQLFormattedError {
  const original = rootCause(error);
  const code = formatted.extensions?.code;
  const requestId = options.requestId === undefined ? {} : { requestId: options.requestId };
  const outage = unavailability(original, code);
  if (outage) {
    const message = isDomainError(original) ? original.message : UNAVAILABLE_MESSAGES[outage.reason];
    const extensions = { code: ErrorCode.UNAVAILABLE, retryable: true, retryAfterSeconds: outage.retryAfterSeconds, reason: outage.reason };
    return { message, locations: formatted.locations, path: formatted.path, extensions: { ...extensions, ...requestId } };
  }
  if (isDomainError(original)) {
    return {
      ...formatted,
      message: original.message,
      extensions: { code: original.code, ...(original.field ? { field: original.field } : {}) },
    };
  }
  if (code === undefined || code === 'INTERNAL_SERVER_ERROR') {
    if (!options.production) return { ...formatted, extensions: { ...formatted.extensions, code: 'INTERNAL_SERVER_ERROR', ...requestId } };
    // Production: no engine text, stack or extension of the original reaches the client.
    return {
      message: GENERIC_MESSAGE,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', ...requestId },
    };
  }
  return options.production ? { ...formatted, message: withoutSuggestions(formatted.message) } : formatted;
}

/** The name src/websocket.ts imports (its owner may rename it). */
export { formatClientError as formatDomainError };

/**
 * Subscriptions travel over WebSocket only (src/websocket.ts); over HTTP (here and on Lambda) a
 * subscription operation is refused before anything executes: HTTP 400, `GRAPHQL_VALIDATION_FAILED`,
 * with a message that says where to subscribe instead. As in src/documents.ts, the request runs
 * as `{ __typename }` until its operation is resolved, then the refusal is thrown (through every
 * plugin: the log line, no-store). Placed after `persistedDocuments`, which resolves a hash to its text.
 */
export function subscriptionsOverWebSocket(where: 'server' | 'lambda'): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ request }) {
      const refused = selectsSubscription(request.query, request.operationName) ? subscriptionRefusal(where) : undefined;
      if (refused) {
        request.query = '{ __typename }';
        request.operationName = undefined;
        request.variables = {};
      }
      return {
        async didResolveOperation() {
          if (refused) throw refused;
        },
      };
    },
  };
}

function selectsSubscription(query: string | undefined, operationName: string | undefined): boolean {
  if (typeof query !== 'string' || !/\bsubscription\b/.test(query)) return false;
  try {
    return getOperationAST(parse(query, { maxTokens: LIMITS.maxTokens }), operationName)?.operation === 'subscription';
  } catch {
    return false; // Apollo reports the syntax error itself
  }
}

function subscriptionRefusal(where: 'server' | 'lambda'): GraphQLError {
  const message =
    where === 'lambda'
      ? 'Subscriptions are not supported by this deployment: AWS Lambda behind an API Gateway HTTP API has no WebSocket. Consume the order events from the EventBridge bus, or subscribe on the long-running server (npm start)'
      : 'Subscriptions are not supported over HTTP: subscribe over WebSocket at this same URL (ws:// or wss://, the graphql-transport-ws protocol of graphql-ws)';
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
}
