/**
 * What the Lambda suites (test/lambda-handler.int.test.ts, test/lambda-bundle.int.test.ts) share:
 * an embedded engine with the app's table, the identity provider production verifies tokens
 * against, the API Gateway HTTP API (payload 2.0) events of test/fixtures/lambda, and reading
 * the handler's answers.
 *
 * The test is the identity provider: a JWKS served on loopback (test/support/jwks.ts) whose
 * `env()` is `AUTH_JWKS_URL`, `AUTH_ISSUER`, `AUTH_AUDIENCE` as template.yaml gives them, and a
 * staff token signed with its key. The fixtures carry `Authorization: Bearer ${TOKEN}`, replaced
 * by that token (or another). Their `requestContext.authorizer` is what API Gateway's JWT
 * authorizer adds; the handler ignores it and verifies the token itself.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { startEngine, type EmbeddedEngine } from '@single-table/engine';
import { createDocumentClient } from '../../src/dynamo/client';
import { ensureTable } from '../../src/dynamo/definition';
import { LAMBDA_BUILD } from '../../src/ops/bundle';
import { cognitoClaims, signingKey, startIdentityProvider, type SigningKey, type TestIdentityProvider } from './jwks';

/** The repository's root (where the Makefile and src/ are). */
export const root = fileURLToPath(new URL('../..', import.meta.url));
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface LambdaTestbed {
  engine: EmbeddedEngine;
  idp: TestIdentityProvider;
  /** The key the JWKS serves, which signed `staffToken`. */
  key: SigningKey;
  staffToken: string;
  /** A fixture event with `token` in its Authorization header (the staff token by default; null: no header). */
  fixture(name: string, token?: string | null): APIGatewayProxyEventV2;
  close(): Promise<void>;
}

/** Starts the identity provider and an engine on loopback, with `table` created in it. */
export async function startLambdaTestbed(table: string): Promise<LambdaTestbed> {
  const key = await signingKey('RS256');
  const idp = await startIdentityProvider(key);
  const staffToken = await idp.sign(key, cognitoClaims({ staff: true, sub: '3c1f8e2a-6b0d-4f5e-9a7c-2d4b6e8f0a1c' }));
  const engine = await startEngine({ host: '127.0.0.1', port: 0 });
  const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'eu-west-1' });
  await ensureTable(doc, table);
  doc.destroy();
  return {
    engine,
    idp,
    key,
    staffToken,
    fixture(name, token = staffToken) {
      const text = readFileSync(join(root, 'test/fixtures/lambda', `${name}.json`), 'utf8');
      const event = JSON.parse(text.replaceAll('${TOKEN}', token ?? '')) as APIGatewayProxyEventV2;
      if (token === null) delete event.headers.authorization;
      return event;
    },
    async close() {
      await engine.close();
      await idp.close();
    },
  };
}

/** A handler's answer with its body parsed. */
export function parse(result: APIGatewayProxyStructuredResultV2) {
  return { statusCode: result.statusCode, headers: result.headers ?? {}, body: JSON.parse(result.body ?? 'null') as unknown };
}

/**
 * The source files an entry point's Lambda bundle holds: esbuild's metafile of the bundle's own
 * options (src/ops/bundle.ts, `LAMBDA_BUILD`), paths relative to the repository.
 */
export async function bundleInputs(entry: string): Promise<string[]> {
  const result = await build({
    ...LAMBDA_BUILD,
    entryPoints: [join(root, entry)],
    outdir: join(root, 'unwritten'),
    write: false,
    metafile: true,
  });
  return Object.keys(result.metafile.inputs);
}
