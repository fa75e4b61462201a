/**
 * Tokens for tests, from the same development issuer the server trusts (src/auth/dev-issuer.ts),
 * with its key pair in a temporary directory of this test process. `issuerDir` can be handed to a
 * server process as `DATA_DIR`, so it trusts the same key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devClaims, devKeyFile, openDevIssuer, type DevIssuer } from '../../src/auth/dev-issuer';
import { authenticatorFor, type Authenticate } from '../../src/auth';
import { readConfig } from '../../src/boot/config';

export const issuerDir = mkdtempSync(join(tmpdir(), 'dev-issuer-'));
const names = readConfig({ DATA_DIR: issuerDir }).auth;
let issuer: Promise<DevIssuer> | undefined;

function devIssuer(): Promise<DevIssuer> {
  issuer ??= openDevIssuer(devKeyFile(issuerDir));
  return issuer;
}

/** The authenticator a test server uses: the dev issuer of `issuerDir`. */
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
