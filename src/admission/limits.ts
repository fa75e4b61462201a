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
 * - armor's own cost limit is off: it cannot see `first`. The pipeline's cost limit replaces it.
 * - field suggestions ("did you mean …") are blocked in production, so errors do not map the schema.
 *
 * The cost (src/admission/cost.ts) is a proven upper bound of the items DynamoDB reads for the operation,
 * whatever the data, plus 1 for every resolved object field: each field that reads is charged
 * what its own reads can reach, and a list multiplies what is below it by its size. It is computed
 * against the operation's coerced variables, once the operation is known and before it runs.
 *
 * The admission pipeline (src/admission/pipeline.ts) applies these limits, in its order, before
 * anything executes: at most `maxMutationFields` root mutation fields, cost at most `maxCost`,
 * then the caller's read and write quotas (HTTP 429, RATE_LIMITED, Retry-After). A refused
 * operation makes no DynamoDB request.
 *
 * Subscriptions pay the same way, before they read (src/live/paid.ts): each event at most
 * `maxEventCost`, their start and each event taken from the same read bucket before the read, and
 * a principal's open subscriptions together holding at most `maxHeldEventCost` per event.
 */
import { ApolloArmor } from '@escape.tech/graphql-armor';

export { QUOTA_DEFAULTS, QUOTA_VARIABLES, type QuotaSettings } from './settings';

export const LIMITS = {
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxDirectives: 50,
  /** Estimated items read (an upper bound) + 1 per object field; see src/admission/cost.ts. */
  maxCost: 10_000,
  /**
   * The same estimate, for one event of a subscription (src/admission/pipeline.ts refuses a costlier one at
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
