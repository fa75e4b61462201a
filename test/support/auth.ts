/**
 * Tokens for tests, from the same development issuer the server trusts (src/auth/dev-issuer.ts),
 * with its key pair in a temporary file of this test process. `issuerFile` can be handed to a
 * server process as `DEV_ISSUER_FILE`, so it trusts the same key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devClaims, openDevIssuer, type DevIssuer } from '../../src/auth/dev-issuer';
import { authenticatorFor, type Authenticate } from '../../src/auth';
import { readConfig } from '../../src/boot/config';

export const issuerFile = join(mkdtempSync(join(tmpdir(), 'dev-issuer-')), 'dev-issuer.json');
const names = readConfig({ DEV_ISSUER_FILE: issuerFile }).auth;
let issuer: Promise<DevIssuer> | undefined;

function devIssuer(): Promise<DevIssuer> {
  issuer ??= openDevIssuer(issuerFile);
  return issuer;
}

/** The authenticator a test server uses: the dev issuer of `issuerFile`. */
export function testAuthenticator(): Promise<Authenticate> {
  return authenticatorFor(names);
}

export const tokens = {
  staff: async () => (await devIssuer()).sign(devClaims(names, { staff: true })),
  /** Another staff member than `staff()`'s (its own subject: its own writes, quota and read-your-writes). */
  staffAs: async (subject: string) => (await devIssuer()).sign(devClaims(names, { staff: true, subject })),
  customer: async (customerId: string) => (await devIssuer()).sign(devClaims(names, { customerId })),
  /** Signed in, no customer claim: the customer id is derived from the subject. */
  subject: async (subject: string) => (await devIssuer()).sign(devClaims(names, { subject })),
  /** Any claims, signed by the dev issuer (tests of claim handling). */
  signed: async (claims: Record<string, unknown>, ttlSeconds?: number) => (await devIssuer()).sign(claims, ttlSeconds),
};

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
