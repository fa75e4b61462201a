/**
 * The development issuer: outside production, when no `AUTH_JWKS_URL` is configured, the server
 * trusts tokens signed with a local ES256 key pair. The pair is created on first use in one
 * git-ignored JSON file of the checkout, `.auth/dev-issuer.json` (with or without `DATA_DIR`: a
 * token printed by `npm run -s token` works against every development server of the checkout), or
 * the file `DEV_ISSUER_FILE` names (tests and the benchmark use a temporary one).
 */
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { ClaimNames } from './tokens';

export const DEV_ISSUER = 'urn:single-table-graphql:dev-issuer';
export const DEV_AUDIENCE = 'single-table-graphql';
const ALG = 'ES256';

interface KeyFile {
  kid: string;
  issuer: string;
  audience: string;
  privateKey: JWK;
  publicKey: JWK;
}

export interface DevIssuer {
  issuer: string;
  audience: string;
  /** The public key set the server verifies against. */
  jwks: { keys: JWK[] };
  /** Signs a token with these claims (`sub` included), valid for `ttlSeconds`. */
  sign(claims: Record<string, unknown>, ttlSeconds?: number): Promise<string>;
}

/** Where the development issuer's key pair lives: `file` (`DEV_ISSUER_FILE`), else the checkout's `.auth/dev-issuer.json`. */
export function devKeyFile(file: string | undefined): string {
  return file ?? join(process.cwd(), '.auth', 'dev-issuer.json');
}

/** What a 401 from the development issuer adds: where its key is, and the command that prints a token it accepts. */
export function devIssuerHint(file: string): string {
  return `the development issuer signs with ${file}; \`npm run -s token -- --customer <id>\` (or --staff) prints a token it accepts`;
}

/** The issuer whose key pair lives in `file`, creating the pair if the file does not exist yet. */
export async function openDevIssuer(file: string): Promise<DevIssuer> {
  const keys = existsSync(file) ? readKeyFile(file) : await createKeyFile(file);
  const privateKey = await importJWK(keys.privateKey, ALG);
  return {
    issuer: keys.issuer,
    audience: keys.audience,
    jwks: { keys: [{ ...keys.publicKey, kid: keys.kid, alg: ALG, use: 'sig' }] },
    sign: (claims, ttlSeconds = 24 * 3600) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid: keys.kid, typ: 'JWT' })
        .setIssuer(keys.issuer)
        .setAudience(keys.audience)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(privateKey),
  };
}

/** The claims of a development token for a customer, staff, or an identity with no customer yet. */
export function devClaims(names: ClaimNames, who: { customerId?: string; staff?: boolean; subject?: string }): Record<string, unknown> {
  const subject = who.subject ?? (who.staff ? 'dev-staff' : who.customerId ? `dev-customer-${who.customerId}` : 'dev-user');
  return {
    sub: subject,
    ...(who.customerId ? { [names.customer]: who.customerId } : {}),
    ...(who.staff ? { [names.groups]: [names.staffGroup] } : {}),
  };
}

function readKeyFile(file: string): KeyFile {
  return JSON.parse(readFileSync(file, 'utf8')) as KeyFile;
}

/**
 * Writes a new key pair to `file` without ever exposing a half-written file, and without two
 * processes starting at once ending up with different keys: the pair is written aside, then
 * hard-linked into place, which fails when another process got there first (its pair wins).
 */
async function createKeyFile(file: string): Promise<KeyFile> {
  const pair = await generateKeyPair(ALG, { extractable: true });
  const publicKey = await exportJWK(pair.publicKey);
  const keys: KeyFile = {
    kid: `dev-${Date.now().toString(36)}`,
    issuer: DEV_ISSUER,
    audience: DEV_AUDIENCE,
    privateKey: await exportJWK(pair.privateKey),
    publicKey,
  };
  mkdirSync(dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  try {
    linkSync(aside, file);
    return keys;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKeyFile(file);
  } finally {
    rmSync(aside, { force: true });
  }
}
