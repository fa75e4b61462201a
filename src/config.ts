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
 */
import { devKeyFile } from './auth/dev-issuer';
import type { ClaimNames } from './auth/tokens';
import { quotaOverrides, type QuotaSettings } from './limits';

export interface AuthConfig extends ClaimNames {
  /** Remote key set (production or any real identity provider); undefined: the dev issuer. */
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  /** The dev issuer's key file (used when `jwksUrl` is undefined). */
  devKeyFile: string;
}

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
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const auth: AuthConfig = {
    jwksUrl: env.AUTH_JWKS_URL || undefined,
    issuer: env.AUTH_ISSUER || undefined,
    audience: env.AUTH_AUDIENCE || undefined,
    customer: env.AUTH_CUSTOMER_CLAIM || 'custom:customerId',
    groups: env.AUTH_GROUPS_CLAIM || 'cognito:groups',
    staffGroup: env.AUTH_STAFF_GROUP || 'staff',
    devKeyFile: devKeyFile(env.DATA_DIR || undefined),
  };
  if (production && (!auth.jwksUrl || !auth.issuer || !auth.audience)) {
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
    createTable: isOn(env.CREATE_TABLE),
    auth,
    corsOrigins: env.CORS_ORIGINS !== undefined
      ? env.CORS_ORIGINS.split(',').map((origin) => origin.trim()).filter((origin) => origin.length > 0)
      : production ? [] : ['http://localhost:*', 'http://127.0.0.1:*'],
    trustedDocuments: env.TRUSTED_DOCUMENTS || undefined,
    quotas: quotaOverrides(env),
  };
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
