/**
 * The product's Apollo server, apart from any transport: what the long-running server
 * (server.ts: node:http, graphql-ws, the explorer) and the Lambda handler (src/entry/lambda.ts)
 * share. Nothing here imports a socket server, the subscription machinery or the explorer, so the
 * Lambda bundle holds none of them (test/lambda-bundle.int.test.ts).
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { buildSchema } from '../schema';
import { interpretedExecution, type Execution } from './interpreted';
import type { Context } from '../request/context';
import type { Authenticate } from '../auth';
import type { Table } from '../dynamo/table';
import { armor, LIMITS, QUOTA_DEFAULTS, type QuotaSettings } from '../admission/limits';
import { createAdmission } from '../admission/pipeline';
import { admissionPlugin } from './admission';
import { createQuotas, type Quotas } from '../admission/quotas';
import { explainPlan, logOperations, maskInternalErrors, noStore, readYourWrites } from './plugins';
import type { SessionConsistency } from '../request/consistency';
import { formatClientError } from '../errors/format';
import type { TrustedDocuments } from '../admission/documents';
import type { EventHub } from '../hub/hub';
import type { SubscriptionSettings } from '../hub/live';

export interface ServerOptions {
  table: Table;
  /** Turns a request's Authorization header into its principal (src/auth). */
  authenticate: Authenticate;
  production: boolean;
  /** Honour `x-explain: 1` in production too. */
  explainInProduction?: boolean;
  logger: Logger;
  /** Development only: error responses carry `extensions.stacktrace` (`DEBUG_ERRORS=1`); default off. */
  debugErrors?: boolean;
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
  /**
   * Read-your-writes (src/request/consistency.ts), one per process: the transport's context decides
   * each request's reads with it, and a response that wrote carries its token. The HTTP server
   * makes one when absent; without one (a bare `createApollo`) screens read eventually, no token.
   */
  session?: SessionConsistency;
  /** The window of the session the HTTP server makes when given none (`READ_YOUR_WRITES_MS`). */
  readYourWritesMs?: number;
}

/**
 * The Apollo server of the product, for any transport (node:http here, AWS Lambda in lambda.ts).
 * Production: no landing page, introspection off unless configured, no stack traces (in development
 * only with `debugErrors`), no field
 * suggestions, internal errors masked. Batched HTTP requests are off in every mode. Apollo's own
 * landing page is off in every mode: in development the HTTP server answers a browser's GET with
 * the offline explorer instead (src/dev/explorer, before Apollo sees the request).
 */
export function createApollo(
  options: ServerOptions,
  transportPlugins: ApolloServerPlugin<Context>[] = [],
  where: 'server' | 'lambda' = 'server',
  schema: GraphQLSchema = buildSchema(),
  execution: Execution = interpretedExecution,
): ApolloServer<Context> {
  const protection = armor(options.production);
  return new ApolloServer<Context>({
    // The entry's choice: compiled by graphql-jit on the server (src/http/execution.ts), graphql-js on Lambda
    // (src/http/interpreted.ts, so jit is not in its bundle); Apollo still parses, validates and admits them.
    gateway: execution(schema),
    introspection: !options.production || options.introspectionInProduction === true,
    // Stack traces in error responses only when asked (DEBUG_ERRORS=1, development only): the log has them anyway.
    includeStacktraceInErrorResponses: !options.production && options.debugErrors === true,
    hideSchemaDetailsFromClientErrors: options.production,
    allowBatchedHttpRequests: false,
    // The process entry point owns SIGTERM/SIGINT (src/entry/cli/start.ts, once): it calls close(), which
    // drains the HTTP server (the drain plugin, with a grace period), stops Apollo, then the engine.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: LIMITS.maxTokens },
    validationRules: protection.validationRules,
    // One formatter for every transport (src/errors/format.ts): domain codes, UNAVAILABLE for outages, masking.
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
      // No Apollo GraphOS reporting (this schema is no subgraph, and no APOLLO_KEY is supported): Apollo
      // then never imports those plugins, which the Lambda bundle leaves out (src/ops/bundle.ts, APOLLO_UNUSED).
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ...protection.plugins,
      logOperations(options.logger),
      maskInternalErrors(),
      explainPlan(),
      ...(options.session ? [readYourWrites(options.session)] : []),
      noStore(),
    ],
  });
}
