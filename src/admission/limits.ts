/**
 * Abuse limits, all enforced before execution, so a refused operation makes no DynamoDB request.
 *
 * graphql-armor supplies the syntactic limits; its defaults are tuned to this schema:
 * - depth 8: the deepest useful query goes one hop back and forth
 *   (`ordersByStatus.edges.node.customer.orders.nodes.lines.sku` is 8); deeper only repeats itself.
 * - aliases 15 (armor's default): a screen aliases a handful of customers; 300 aliased customer
 *   screens are refused here already.
 * - directives 50 (armor's default).
 * - tokens 1,000 (armor's default figure), enforced by graphql-js's own parser (`parseOptions.maxTokens`
 *   in Apollo) rather than armor's, whose refusal Apollo reports as a 500; Sandbox's introspection
 *   query uses ~300 tokens.
 * - armor's own cost limit is off: it cannot see `first`. `admission` below replaces it.
 * - field suggestions ("did you mean …") are blocked in production, so errors do not map the schema.
 *
 * The cost (src/admission/cost.ts) is a proven upper bound of the items DynamoDB reads for the operation,
 * whatever the data, plus 1 for every resolved object field: each field that reads is charged
 * what its own reads can reach, and a list multiplies what is below it by its size. It is computed
 * against the operation's coerced variables, once the operation is known and before it runs.
 *
 * `admission` (below) runs, in this order, before anything executes: subscriptions refused (over
 * HTTP; they are served over WebSocket, src/live/websocket.ts), variables coerced (a bad one is BAD_USER_INPUT, HTTP 400), at most
 * `maxMutationFields` root mutation fields, cost at most `maxCost`, then the caller's read and
 * write quotas (HTTP 429, RATE_LIMITED, Retry-After). A refused operation makes no DynamoDB request.
 *
 * Subscriptions pay the same way, before they read (src/live/paid.ts): each event at most
 * `maxEventCost`, their start and each event taken from the same read bucket before the read, and
 * a principal's open subscriptions together holding at most `maxHeldEventCost` per event.
 */
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues, GraphQLError, type DocumentNode } from 'graphql';
import { estimateOperation, type OperationEstimate } from './cost';
import { createQuotas, type Quotas, type Take } from './quotas';
import type { QuotaSettings } from './settings';

export { QUOTA_DEFAULTS, QUOTA_VARIABLES, type QuotaSettings } from './settings';
import { quotaKey } from '../auth/principal';
import { ErrorCode, HTTP_STATUS } from '../model/errors';
import type { Context } from '../request/context';

export const LIMITS = {
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxDirectives: 50,
  /** Estimated items read (an upper bound) + 1 per object field; see src/admission/cost.ts. */
  maxCost: 10_000,
  /**
   * The same estimate, for one event of a subscription (src/live/websocket.ts refuses a costlier one at
   * subscribe time, before any read). Far below `maxCost`, because an event is not a request: it
   * fans out to every subscriber that hears it and arrives at the rate of other people's writes,
   * not of the subscriber's own requests, so a selection admitted here is read again on every
   * write anyone makes to what it follows. 250 holds the whole order screen of an event
   * (`order { status totalCents lines { … } customer { name addresses { … } } }`, 212); a selection
   * that walks from the order to its customer's other orders (`customer { orders(first: 98) { nodes
   * { lines { sku } } } }`, ~9,800 items) is refused: query it over HTTP, once, when it is wanted.
   */
  maxEventCost: 250,
  /** Root mutation fields in one operation: each is a write (and a transaction) of its own. */
  maxMutationFields: 3,
  /** Request bodies above this size are refused with 413 before they are read whole. */
  maxBodyBytes: 256 * 1024,
} as const;

export function armor(production: boolean) {
  return new ApolloArmor({
    maxDepth: { n: LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true, exposeLimits: !production },
    maxAliases: { n: LIMITS.maxAliases, exposeLimits: !production },
    maxTokens: { enabled: false },
    maxDirectives: { n: LIMITS.maxDirectives, exposeLimits: !production },
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
}

/** Estimates remembered per parsed document, one per operation name and variables. */
const ESTIMATES_PER_DOCUMENT = 1_000;

export interface AdmissionOptions {
  /** Production: refusals do not print limits, costs or quotas. */
  production: boolean;
  quotas: QuotaSettings;
  /** The buckets to use (the server's, which its websockets share; tests); made from `quotas` when absent. */
  buckets?: Quotas;
}

/**
 * Admits an operation or refuses it before it executes (see the file comment). The estimate of a
 * document depends on its variables only, so it is remembered per parsed document (Apollo reuses
 * the parsed document of a repeated query) and variables; `contextValue.cost` carries it to the
 * explain extension. Quotas are charged here, once the operation is admitted, never for a refusal.
 */
export function admission(options: AdmissionOptions): ApolloServerPlugin<Context> {
  const known = new WeakMap<DocumentNode, Map<string, OperationEstimate>>();
  const buckets = options.buckets ?? createQuotas(options.quotas);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, operation, contextValue }) {
          if (!operation) return; // Apollo reports the missing or ambiguous operation itself
          if (operation.operation === 'subscription') {
            throw refusal(
              'Subscriptions are not served over HTTP: subscribe over WebSocket (graphql-ws) at /graphql',
              'GRAPHQL_VALIDATION_FAILED',
            );
          }
          const key = `${request.operationName ?? ''}|${JSON.stringify(request.variables ?? {})}`;
          let estimates = known.get(document);
          if (!estimates) known.set(document, (estimates = new Map()));
          let estimate = estimates.get(key);
          if (estimate === undefined) {
            const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {}, { maxErrors: 1 });
            if (coerced.errors) throw refusal(coerced.errors[0]!.message, ErrorCode.BAD_USER_INPUT);
            try {
              estimate = estimateOperation(schema, document, operation, coerced.coerced);
            } catch (error) {
              // An argument graphql cannot coerce (validation passes most of these already).
              if (error instanceof GraphQLError) throw refusal(error.message, ErrorCode.BAD_USER_INPUT);
              throw error;
            }
            // Bounded per document; the oldest set of variables makes room (a screen cycles through many ids).
            if (estimates.size >= ESTIMATES_PER_DOCUMENT) estimates.delete(estimates.keys().next().value as string);
            estimates.set(key, estimate);
          }
          contextValue.cost = estimate;
          if (estimate.mutationFields > LIMITS.maxMutationFields) {
            throw refusal(
              options.production
                ? 'Too many mutation fields in one operation; send them in separate requests'
                : `An operation may hold at most ${LIMITS.maxMutationFields} mutation fields, this one holds ${estimate.mutationFields}; send them in separate requests`,
              'GRAPHQL_VALIDATION_FAILED',
              options.production ? {} : { mutationFields: estimate.mutationFields, maxMutationFields: LIMITS.maxMutationFields },
            );
          }
          if (estimate.cost > LIMITS.maxCost) {
            throw refusal(
              options.production
                ? 'Operation too costly: it may read more items than one operation may; lower `first` or split the operation'
                : `Operation cost ${estimate.cost} exceeds the limit of ${LIMITS.maxCost} (an upper bound of the items it may read, ${estimate.reads}, plus 1 a resolved object; lower \`first\` or split the operation)`,
              'GRAPHQL_VALIDATION_FAILED',
              options.production ? {} : { cost: estimate.cost, reads: estimate.reads, maxCost: LIMITS.maxCost },
            );
          }
          // An anonymous caller selecting data is refused by requireSignIn (401): nothing to charge.
          if (contextValue.principal.kind === 'anonymous' && estimate.dataFields > 0) return;
          const caller = quotaKey(contextValue.principal, contextValue.clientAddress);
          const reads = buckets.reads.check(caller, estimate.cost);
          const writes = buckets.writes.check(caller, estimate.writes);
          if (!reads.ok) throw rateLimited('read', estimate.cost, buckets.reads.perMinute, reads, options.production);
          if (!writes.ok) throw rateLimited('write', estimate.writes, buckets.writes.perMinute, writes, options.production);
          buckets.reads.take(caller, estimate.cost);
          buckets.writes.take(caller, estimate.writes);
        },
      };
    },
  };
}

/** A refusal before execution: HTTP 400 with `code`. */
function refusal(message: string, code: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions, http: { status: 400 } } });
}

/**
 * HTTP 429, RATE_LIMITED, and `Retry-After` (whole seconds until the bucket holds the amount). An
 * operation larger than a whole bucket can never pass: its message says so, and it carries no
 * Retry-After, since waiting would not help.
 */
export function rateLimited(kind: 'read' | 'write', amount: number, perMinute: number, take: Take, production: boolean): GraphQLError {
  const unit = kind === 'read' ? 'read cost units' : 'items written';
  const never = take.retryAfterSeconds === undefined;
  const message = never
    ? production
      ? `This operation is larger than a whole minute's ${kind} quota: it can never pass; lower \`first\` or split it`
      : `This operation needs ${amount} ${unit}, more than a whole minute's ${kind} quota of ${perMinute}: it can never pass; lower \`first\` or split it`
    : production
      ? `${kind === 'read' ? 'Read' : 'Write'} quota exceeded; retry in ${take.retryAfterSeconds} s`
      : `${kind === 'read' ? 'Read' : 'Write'} quota exceeded: this operation needs ${amount} ${unit} of ${perMinute} a minute; retry in ${take.retryAfterSeconds} s`;
  return new GraphQLError(message, {
    extensions: {
      code: ErrorCode.RATE_LIMITED,
      quota: kind,
      ...(never ? { retryable: false } : { retryAfterSeconds: take.retryAfterSeconds }),
      http: {
        status: HTTP_STATUS.RATE_LIMITED,
        headers: new Map(never ? [] : [['retry-after', String(take.retryAfterSeconds)]]),
      },
    },
  });
}
