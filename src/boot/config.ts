/**
 * Runtime configuration, read once from the environment. The only module that reads it.
 *
 * `DYNAMODB_ENDPOINT` set: the server talks to that endpoint and never starts the embedded engine.
 * Unset in production (`NODE_ENV=production`): the SDK's default endpoint resolution applies
 * (Amazon DynamoDB in `AWS_REGION`); the embedded engine is a development convenience only.
 *
 * Identity: production verifies bearer tokens against `AUTH_JWKS_URL`, `AUTH_ISSUER` and
 * `AUTH_AUDIENCE` and refuses to start without them. Outside production, without `AUTH_JWKS_URL`,
 * the local development issuer (src/auth/dev-issuer.ts) is trusted instead.
 *
 * Nothing else reads `process.env`: the model (`STATUS_SHARDS`), the engine (`ENGINE_DEBUG`), the
 * SDK client (whether credentials are in the environment) and the logger (`LOG_LEVEL`) receive
 * their settings from here, through the bootstrap (src/boot/bootstrap.ts). test/config.test.ts checks it.
 * The one write: `silenceSdkNodeVersionNotice` (below), a setting of the AWS SDK's own.
 */
import type { AuthConfig } from '../auth';
import { devKeyFile } from '../auth/dev-issuer';
import { QUOTA_VARIABLES, type QuotaSettings } from '../admission/settings';
import { SUBSCRIPTION_VARIABLES, type SubscriptionSettings } from '../hub/live';
import { checkShardCount, DEFAULT_MODEL_SETTINGS, type ModelSettings } from '../model/settings';
import type { HedgeSettings } from '../dynamo/hedge';

export type { AuthConfig } from '../auth';

/**
 * The browser origins development allows when `CORS_ORIGINS` is unset: any local port, and Apollo
 * Sandbox (https://studio.apollographql.com), which calls the local server from its own origin.
 */
const DEVELOPMENT_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*', 'https://studio.apollographql.com'];

export interface Config {
  readonly tableName: string;
  readonly port: number;
  readonly host: string;
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly dataDir: string | undefined;
  readonly production: boolean;
  /** Whether `x-explain: 1` is honoured in production, for staff (always honoured in development). */
  readonly explainInProduction: boolean;
  /** `DEBUG_ERRORS=1`: development error responses carry their stack trace (`extensions.stacktrace`); never in production. */
  readonly debugErrors: boolean;
  /** Whether introspection is served in production (always in development). */
  readonly introspectionInProduction: boolean;
  /** Create the table when missing, against `DYNAMODB_ENDPOINT` (always with the embedded engine). */
  readonly createTable: boolean;
  readonly auth: AuthConfig;
  /** Browser origins allowed by CORS; `*` matches any port (`http://localhost:*`). */
  readonly corsOrigins: readonly string[];
  /** A GraphQL Code Generator persisted-documents manifest: production then runs only those. */
  readonly trustedDocuments: string | undefined;
  readonly quotas: Partial<QuotaSettings>;
  /** The model's settings (src/model/settings.ts): `STATUS_SHARDS`, which the bootstrap builds the table with (`Table.writeShards`). */
  readonly model: ModelSettings;
  /** pino level: `LOG_LEVEL`, else silent under Vitest, else info. */
  readonly logLevel: string;
  /** `ENGINE_DEBUG`: the embedded engine prints the stack of every internal failure. */
  readonly engineDebug: boolean;
  /** `AWS_ACCESS_KEY_ID` or `AWS_PROFILE` is set: a custom endpoint gets no dummy credentials. */
  readonly awsCredentialsInEnvironment: boolean;
  /** How long shutdown waits for requests in flight before closing their connections (`SHUTDOWN_GRACE_MS`). */
  readonly shutdownGraceMillis: number;
  /** `READ_YOUR_WRITES_MS`: how long after a principal's own write its exact screens read strongly; unset: src/request/consistency.ts's default (5 s). */
  readonly readYourWritesMs: number | undefined;
  /** Live updates' limits (src/hub/live.ts): `SUBSCRIPTIONS_PER_CONNECTION`, `SUBSCRIPTION_CONNECTIONS_PER_PRINCIPAL`, `SUBSCRIPTION_BUFFER`, `SUBSCRIPTION_HELD_EVENT_COST`. */
  readonly subscriptions: Partial<SubscriptionSettings>;
  /** The outbox relay (src/relay/relay.ts): `RELAY`, `EVENT_BUS_NAME`, `EVENT_SOURCE`, `RELAY_POLL_MS`, `RELAY_MAX_ATTEMPTS`. */
  readonly relay: RelayConfig;
  /** Hedged reads (src/dynamo/hedge.ts): `HEDGE`, `HEDGE_BUDGET`, `HEDGE_PERCENTILE`, `HEDGE_FLOOR_MS`. */
  readonly hedging: HedgingConfig;
}

/** Hedged reads' settings (README, "Hedged reads"). */
export interface HedgingConfig {
  /**
   * `HEDGE`: `on` (`1`, `true`) or `off` (`0`, `false`). Unset: on in production; off in development
   * and under Vitest, so tests' wire-counted request budgets stay exact (a test that wants hedging
   * asks for it).
   */
  readonly enabled: boolean;
  /** `HEDGE_BUDGET` (share of requests, 0..1), `HEDGE_PERCENTILE`, `HEDGE_FLOOR_MS`; unset: the defaults of src/dynamo/hedge.ts. */
  readonly settings: Partial<HedgeSettings>;
}

/** The outbox relay's settings (README, "Events"). */
export interface RelayConfig {
  /**
   * `RELAY`: whether `npm start` runs the relay in-process, feeding its subscriptions. `default`
   * (unset): in development yes, in production no (there the relay is its own Lambda or `npm run
   * relay`); `on` (`1`, `true`) or `off` (`0`, `false`) decide it.
   */
  readonly inProcess: 'default' | 'on' | 'off';
  /** `EVENT_BUS_NAME`: publish to this Amazon EventBridge bus (Lambda, or `npm run relay`); unset: locally. */
  readonly eventBusName: string | undefined;
  /** `EVENT_SOURCE`: the EventBridge `Source` of every event; default `single-table-graphql`. */
  readonly eventSource: string;
  /** `RELAY_POLL_MS`: how long the local relay waits after a poll that found nothing new; default 200 (Amazon allows 5 GetRecords a second a shard). */
  readonly pollMillis: number;
  /** `RELAY_MAX_ATTEMPTS`: publish attempts of one record before it goes to the dead letters; default 5. */
  readonly maxAttempts: number;
}

/**
 * `options.auth: false` is for processes that verify no token (the relay: `npm run relay` and its
 * Lambda, src/entry/lambda-relay.ts): production then does not require the identity provider's settings.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env, options: { auth?: boolean } = {}): Config {
  const production = env.NODE_ENV === 'production';
  const auth: AuthConfig = {
    jwksUrl: env.AUTH_JWKS_URL || undefined,
    issuer: env.AUTH_ISSUER || undefined,
    audience: env.AUTH_AUDIENCE || undefined,
    customer: env.AUTH_CUSTOMER_CLAIM || 'custom:customerId',
    groups: env.AUTH_GROUPS_CLAIM || 'cognito:groups',
    staffGroup: env.AUTH_STAFF_GROUP || 'staff',
    devKeyFile: devKeyFile(env.DEV_ISSUER_FILE || undefined),
  };
  if (options.auth !== false && production && (!auth.jwksUrl || !auth.issuer || !auth.audience)) {
    throw new Error('production needs AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE: refusing to start without a way to verify tokens');
  }
  if (auth.jwksUrl && (!auth.issuer || !auth.audience)) throw new Error('AUTH_JWKS_URL needs AUTH_ISSUER and AUTH_AUDIENCE');
  return {
    tableName: env.TABLE_NAME || 'app',
    port: parsePort(env.PORT, 4000),
    host: env.HOST || '127.0.0.1',
    endpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    dataDir: env.DATA_DIR || undefined,
    production,
    explainInProduction: isOn(env.EXPLAIN_ENABLED),
    introspectionInProduction: isOn(env.INTROSPECTION_ENABLED),
    debugErrors: !production && isOn(env.DEBUG_ERRORS),
    createTable: isOn(env.CREATE_TABLE),
    auth,
    corsOrigins:
      env.CORS_ORIGINS !== undefined
        ? env.CORS_ORIGINS.split(',')
            .map((origin) => origin.trim())
            .filter((origin) => origin.length > 0)
        : production
          ? []
          : DEVELOPMENT_ORIGINS,
    trustedDocuments: env.TRUSTED_DOCUMENTS || undefined,
    quotas: positiveIntegers(env, QUOTA_VARIABLES),
    model: readModelSettings(env),
    logLevel: env.LOG_LEVEL || (env.VITEST ? 'silent' : 'info'),
    engineDebug: Boolean(env.ENGINE_DEBUG),
    awsCredentialsInEnvironment: Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE),
    shutdownGraceMillis: parseMillis('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 5_000),
    readYourWritesMs: env.READ_YOUR_WRITES_MS ? parseMillis('READ_YOUR_WRITES_MS', env.READ_YOUR_WRITES_MS, 0) : undefined,
    subscriptions: positiveIntegers(env, SUBSCRIPTION_VARIABLES),
    relay: readRelayConfig(env),
    hedging: readHedgingConfig(env, production),
  };
}

function readHedgingConfig(env: NodeJS.ProcessEnv, production: boolean): HedgingConfig {
  const enabled = onOff('HEDGE', env.HEDGE) ?? (production && !env.VITEST);
  const settings: Partial<HedgeSettings> = {};
  const number = (name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined => {
    if (value === undefined || value === '') return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || !check(n)) throw new Error(`${name} must be ${what}, got ${value}`);
    return n;
  };
  const budget = number('HEDGE_BUDGET', env.HEDGE_BUDGET, (n) => n >= 0 && n <= 1, 'a share of requests 0..1 (0.05 is 5%)');
  const percentile = number('HEDGE_PERCENTILE', env.HEDGE_PERCENTILE, (n) => n >= 50 && n < 100, 'a percentile 50..99.9');
  const floorMs = number('HEDGE_FLOOR_MS', env.HEDGE_FLOOR_MS, (n) => n >= 0, 'a number of milliseconds ≥ 0');
  if (budget !== undefined) settings.budget = budget;
  if (percentile !== undefined) settings.percentile = percentile;
  if (floorMs !== undefined) settings.floorMs = floorMs;
  return { enabled, settings };
}

/** A switch variable: on/1/true, off/0/false, or undefined when unset; anything else is an error. */
function onOff(name: string, value: string | undefined): boolean | undefined {
  const text = (value ?? '').toLowerCase();
  if (text === '') return undefined;
  if (['on', '1', 'true'].includes(text)) return true;
  if (['off', '0', 'false'].includes(text)) return false;
  throw new Error(`${name} must be on or off, got ${value}`);
}

function relaySwitch(value: string | undefined): RelayConfig['inProcess'] {
  const on = onOff('RELAY', value);
  return on === undefined ? 'default' : on ? 'on' : 'off';
}

function readRelayConfig(env: NodeJS.ProcessEnv): RelayConfig {
  const attempts = Number(env.RELAY_MAX_ATTEMPTS || 5);
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new Error(`RELAY_MAX_ATTEMPTS must be an integer ≥ 1, got ${env.RELAY_MAX_ATTEMPTS}`);
  return {
    inProcess: relaySwitch(env.RELAY),
    eventBusName: env.EVENT_BUS_NAME || undefined,
    eventSource: env.EVENT_SOURCE || 'single-table-graphql',
    pollMillis: parseMillis('RELAY_POLL_MS', env.RELAY_POLL_MS, 200),
    maxAttempts: attempts,
  };
}

/**
 * Turns off the AWS SDK's Node-version notice (a 9-line `NodeVersionSupportWarning`: releases after
 * January 2027 need Node 22) in the processes this repository runs itself: src/ops/cli.ts calls
 * it first in every entry point of src/entry/cli, before any client exists. Those run on the Node 20 the
 * README names, with the SDK version the lock file pins, which supports it; the notice is about
 * upgrades we make deliberately, so it is noise on every command. Lambda is not affected (its
 * runtime is Node 22, which the SDK does not warn about) and does not call this.
 *
 * How the SDK decides (@aws-sdk/core, `emitWarningIfUnsupportedVersion`, run when the first client
 * is built): it stays silent when `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED` is `true`,
 * the switch AWS documents for it (aws/aws-sdk-js-v3#7983). A value already in the environment wins,
 * so `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=false` brings the notice back.
 */
export function silenceSdkNodeVersionNotice(env: NodeJS.ProcessEnv = process.env): void {
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** The model's settings alone, for processes that need only them (packages/bench/run.ts). */
export function readModelSettings(env: NodeJS.ProcessEnv = process.env): ModelSettings {
  const value = env.STATUS_SHARDS;
  if (value === undefined || value === '') return { ...DEFAULT_MODEL_SETTINGS };
  const shards = Number(value);
  if (!Number.isInteger(shards)) throw new Error(`STATUS_SHARDS must be an integer 1..64, got ${value}`);
  return { statusShards: checkShardCount(shards) };
}

/** The settings named by `variables` (environment variable → setting) that the environment sets: positive integers. */
function positiveIntegers<K extends string>(env: NodeJS.ProcessEnv, variables: Record<string, K>): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const [name, key] of Object.entries(variables) as Array<[string, K]>) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
    out[key] = n;
  }
  return out;
}

function parseMillis(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`${name} must be a whole number of milliseconds, got ${value}`);
  return ms;
}

function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0..65535, got ${value}`);
  return port;
}
