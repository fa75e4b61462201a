/**
 * Runtime configuration, read once from the environment.
 *
 * `DYNAMODB_ENDPOINT` set: the server talks to that endpoint and never starts the embedded engine.
 * Unset in production (`NODE_ENV=production`): the SDK's default endpoint resolution applies
 * (Amazon DynamoDB in `AWS_REGION`); the embedded engine is a development convenience only.
 */
export interface Config {
  readonly tableName: string;
  readonly port: number;
  readonly host: string;
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly dataDir: string | undefined;
  readonly production: boolean;
  /** Whether `x-explain: 1` is honoured in production (always honoured in development). */
  readonly explainInProduction: boolean;
  /** Whether introspection is served in production (always in development). */
  readonly introspectionInProduction: boolean;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    tableName: env.TABLE_NAME || 'app',
    port: parsePort(env.PORT, 4000),
    host: env.HOST || '127.0.0.1',
    endpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    dataDir: env.DATA_DIR || undefined,
    production: env.NODE_ENV === 'production',
    explainInProduction: isOn(env.EXPLAIN_ENABLED),
    introspectionInProduction: isOn(env.INTROSPECTION_ENABLED),
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
