/**
 * Apollo plugins of the HTTP transport, each one concern: operation logs, the request id and 503 of
 * errors (after `formatClientError`, src/errors/format.ts), the `extensions.dynamodb` plan and
 * no-store. None of them changes what is executed; admission is one plugin, src/http/admission.ts, over src/admission/pipeline.ts.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import type { Context } from '../request/context';
import { HTTP_STATUS } from '../model/errors';
import { Code } from '../errors/codes';
import { entityOf } from '../model/entities';
import { logLevel, rootCause } from '../errors/format';
import { READ_AFTER_HEADER, type SessionConsistency } from '../request/consistency';

/**
 * One JSON log line per operation (request id, operation name, duration, DynamoDB requests, waves,
 * items, capacity, hedged reads), and each internal error logged in full, once, with its request id.
 */
export function logOperations(logger: Logger): ApolloServerPlugin<Context> {
  return {
    // The context function failed (src/request/context.ts): a refused token is the client's; the identity
    // provider unavailable is an outage (warn); anything else is ours. Logged here, once.
    async contextCreationDidFail({ error }) {
      const extensions: Record<string, unknown> = error instanceof GraphQLError ? error.extensions : {};
      if (extensions.code === Code.UNAUTHENTICATED) return;
      if (extensions.code !== Code.UNAVAILABLE) return void logger.error({ err: rootCause(error) }, 'context creation failed');
      logger.warn({ requestId: extensions.requestId, reason: extensions.reason, err: rootCause(error) }, 'request unavailable');
    },
    async requestDidStart() {
      const startedAt = performance.now();
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          for (const error of errors) {
            const log = logLevel(error, error.extensions?.code);
            const original = rootCause(error);
            if (log?.level === 'warn')
              logger.warn({ requestId: contextValue.requestId, operationName, reason: log.reason, err: original }, 'operation unavailable');
            else if (log?.level === 'error')
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
              // What it was admitted with (src/admission/cost.ts): `reads` bounds `dynamodb.read`.
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
            if (code !== Code.INTERNAL_SERVER_ERROR && code !== Code.UNAVAILABLE) return error;
            if (code === Code.UNAVAILABLE) retryAfter = Math.max(retryAfter, Number(error.extensions?.retryAfterSeconds) || 1);
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
              // How the exact screens read (src/request/consistency.ts): strong, and why.
              consistency: contextValue.reads,
              totals: {
                requests: summary.requests,
                items: summary.items,
                scanned: summary.scanned,
                consumedCapacity: summary.capacity,
                hedges: summary.hedges,
              },
            },
            // What the operation was admitted with (src/admission/cost.ts): `reads` bounds `totals.scanned` of the reads.
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
 * Read-your-writes (src/request/consistency.ts): a response whose operation sent a write request
 * carries the token that makes its principal's next screens read strongly, as the `x-read-after`
 * header and `extensions.readAfter` (`token`, `until` as an ISO time), and the session remembers
 * the write for this process's later requests.
 */
export function readYourWrites(session: SessionConsistency): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (!contextValue.meter.wrote) return;
          const readAfter = session.wrote(contextValue.principal);
          if (!readAfter) return;
          response.http.headers.set(READ_AFTER_HEADER, readAfter.token);
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          result.extensions = {
            ...result.extensions,
            readAfter: { token: readAfter.token, until: new Date(readAfter.until).toISOString() },
          };
        },
      };
    },
  };
}
