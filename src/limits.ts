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
 * - armor's own cost limit is off: it cannot see `first`. `operationCost` below replaces it.
 * - field suggestions ("did you mean …") are blocked in production, so errors do not map the schema.
 *
 * The cost is an estimate of items read: every field costs 1, and a list multiplies what is
 * below it by its size — `first` for connections (`orders`, `ordersByStatus`, `ordersBySku`), the stored bound for
 * `addresses` (10) and `lines` (96). It is computed with graphql-query-complexity against the
 * operation's variables, once the operation is known and before it runs.
 */
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { FIRST_DEFAULT, MAX_ADDRESSES, MAX_LINES } from './model';

export const LIMITS = {
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxDirectives: 50,
  maxCost: 10_000,
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

const LIST_BOUNDS: Record<string, number> = { addresses: MAX_ADDRESSES, lines: MAX_LINES };

/** Items a field may read: 1, plus what is below it times the list's size. */
export const itemsEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (field.name === 'orders' || field.name === 'ordersByStatus' || field.name === 'ordersBySku') {
    const first = typeof args.first === 'number' && args.first > 0 ? args.first : FIRST_DEFAULT;
    return 1 + first * childComplexity;
  }
  return 1 + (LIST_BOUNDS[field.name] ?? 1) * childComplexity;
};

/**
 * Refuses an operation whose estimated cost passes `LIMITS.maxCost`, before it executes. The cost
 * of a document depends on its variables only, so it is remembered per parsed document (Apollo
 * reuses the parsed document of a repeated query) and variables.
 */
export function operationCost(): ApolloServerPlugin {
  const known = new WeakMap<DocumentNode, Map<string, number>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const key = `${request.operationName ?? ''}|${JSON.stringify(request.variables ?? {})}`;
          let costs = known.get(document);
          if (!costs) known.set(document, (costs = new Map()));
          let cost = costs.get(key);
          if (cost === undefined) {
            cost = getComplexity({
              schema,
              query: document,
              variables: request.variables ?? {},
              ...(request.operationName ? { operationName: request.operationName } : {}),
              estimators: [itemsEstimator],
            });
            if (costs.size < 100) costs.set(key, cost);
          }
          if (cost > LIMITS.maxCost) {
            throw new GraphQLError(`Operation cost ${cost} exceeds the limit of ${LIMITS.maxCost} (items it may read; lower \`first\` or split the operation)`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', cost, maxCost: LIMITS.maxCost, http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}

/**
 * Quotas per principal (per client address when anonymous): token buckets refilled continuously,
 * one for reads (estimated items read, the cost above) and one for writes (items written). A
 * bucket holds one minute's worth, so a client may spend a minute's quota in a burst, then waits.
 */
export interface QuotaSettings {
  /** Read cost units (estimated items read) per minute. */
  readsPerMinute: number;
  /** Items written per minute. */
  writesPerMinute: number;
}

/**
 * Defaults: a customer screen is estimated at about 150 units, so 60,000 a minute is ~400 screens
 * a minute for one person (no human needs more; a scraper needs far more). 1,000 items written a
 * minute is ten full 96-line orders, or hundreds of ordinary ones.
 */
export const QUOTA_DEFAULTS: QuotaSettings = { readsPerMinute: 60_000, writesPerMinute: 1_000 };

/** `QUOTA_READS_PER_MINUTE` / `QUOTA_WRITES_PER_MINUTE` override the defaults (config.ts passes the environment). */
export function quotaOverrides(env: Record<string, string | undefined>): Partial<QuotaSettings> {
  const out: Partial<QuotaSettings> = {};
  for (const [name, key] of [['QUOTA_READS_PER_MINUTE', 'readsPerMinute'], ['QUOTA_WRITES_PER_MINUTE', 'writesPerMinute']] as const) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
    out[key] = n;
  }
  return out;
}
