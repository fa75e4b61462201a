/**
 * The development issuer: one key file shared by the server, `npm run token` and `npm start`'s
 * printed tokens, created once even when several processes start together; and the configuration
 * rule that production never runs without a real issuer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, issuerDir } from './support/auth';
import { startServerProcess } from './support/processes';
import { devKeyFile, openDevIssuer } from '../src/auth/dev-issuer';
import { readConfig } from '../src/boot/config';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function token(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/entry/cli/token.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: issuerDir, NODE_ENV: 'development' },
    });
    return { stdout, code: 0 };
  } catch (error) {
    return { stdout: String((error as { stdout?: string }).stdout ?? ''), code: (error as { code: number }).code };
  }
}

describe('npm run token', () => {
  it('prints one token and nothing else, which the server accepts for that principal', async () => {
    const created = (await stack.gql(`mutation { createCustomer(input: { name: "Tok", email: "tok-${Date.now()}@example.com" }) { id } }`))
      .data.createCustomer;
    const printed = await token('--customer', created.id);
    expect(printed.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const me = await stack.gql(`{ me { id } }`, {}, bearer(printed.stdout.trim()));
    expect(me.data).toEqual({ me: { id: created.id } });
    const staff = await token('--staff');
    expect(
      (await stack.gql(`{ ordersByStatus(status: PAID, first: 1) { nodes { id } } }`, {}, bearer(staff.stdout.trim()))).errors,
    ).toBeUndefined();
  });

  it('refuses unclear requests with a usage error (exit 2) and prints no token', async () => {
    expect(await token('--staff', '--subject', 'x')).toEqual({ stdout: '', code: 2 });
    expect(await token('--customer', 'not-an-id')).toEqual({ stdout: '', code: 2 });
  });
});

describe('the server process', () => {
  it('prints a staff token of the shared issuer at start', async () => {
    const server = await startServerProcess(stack.engine.endpoint);
    try {
      const printed = /staff: +(\S+)/.exec(server.output())?.[1];
      expect(printed).toBeDefined();
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(printed!) },
        body: JSON.stringify({ query: '{ ordersByStatus(status: PAID, first: 1) { nodes { id } } }' }),
      });
      expect(response.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('the key file', () => {
  it('is created once when several issuers open it together', async () => {
    const file = devKeyFile(mkdtempSync(join(tmpdir(), 'issuer-race-')));
    const issuers = await Promise.all(Array.from({ length: 6 }, () => openDevIssuer(file)));
    expect(new Set(issuers.map((issuer) => JSON.stringify(issuer.jwks))).size).toBe(1);
  });
});

describe('configuration', () => {
  it('refuses production without a JWKS, an issuer and an audience', () => {
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrow(/AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE/);
    expect(() =>
      readConfig({ NODE_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example' }),
    ).toThrow();
    const config = readConfig({
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://idp.example/jwks.json',
      AUTH_ISSUER: 'https://idp.example',
      AUTH_AUDIENCE: 'app',
    });
    expect(config.auth).toMatchObject({
      jwksUrl: 'https://idp.example/jwks.json',
      issuer: 'https://idp.example',
      audience: 'app',
      customer: 'custom:customerId',
      groups: 'cognito:groups',
      staffGroup: 'staff',
    });
    expect(config.corsOrigins).toEqual([]);
  });
});
