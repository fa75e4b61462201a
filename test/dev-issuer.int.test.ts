/**
 * The development issuer: one key file shared by the server, `npm run token` and `npm start`'s
 * printed tokens, created once even when several processes start together; and the configuration
 * rule that production never runs without a real issuer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, issuerFile } from './support/auth';
import { startServerProcess } from './support/processes';
import { openDevIssuer } from '../src/auth/dev-issuer';
import { readConfig } from '../src/boot/config';
import { customerItems, seededCustomerAt } from '../src/ops/seed-data';

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
  return tokenWith({ DEV_ISSUER_FILE: issuerFile }, ...args);
}

/** `npm run -s token` as a developer runs it: the given environment over the test process's (DEV_ISSUER_FILE removed when not given). */
async function tokenWith(env: Record<string, string>, ...args: string[]): Promise<{ stdout: string; code: number }> {
  const { DEV_ISSUER_FILE: _ignored, ...inherited } = process.env;
  try {
    const { stdout } = await run('npm', ['run', '-s', 'token', '--', ...args], {
      cwd: root,
      env: { ...inherited, NODE_ENV: 'development', ...env },
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
  it('prints a staff token and, for seeded data (no demo customer), a customer token of the shared issuer', async () => {
    const seeded = seededCustomerAt({ customers: 1, orders: 3, seed: 'printed-token' }, 0);
    await stack.load(customerItems(seeded, stack.table.writeShards));
    const server = await startServerProcess(stack.engine.endpoint);
    try {
      const ask = (token: string, query: string) =>
        fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(token) },
          body: JSON.stringify({ query }),
        });
      const staff = /staff: +(\S+)/.exec(server.output())?.[1];
      expect(staff).toBeDefined();
      expect((await ask(staff!, '{ ordersByStatus(status: PAID, first: 1) { nodes { id } } }')).status).toBe(200);
      const customer = /customer (.+) \((\w+)\): (\S+)/.exec(server.output());
      expect(customer?.slice(1, 3)).toEqual([seeded.customer.name, seeded.customer.id]);
      expect(await (await ask(customer![3]!, '{ me { id } }')).json()).toMatchObject({ data: { me: { id: seeded.customer.id } } });
    } finally {
      await server.stop();
    }
  });
});

describe('one development issuer per checkout', () => {
  it('signs a token with `npm run -s token` that a DATA_DIR server accepts, and a stranger token is refused with the way out', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'issuer-data-'));
    try {
      // The checkout's own issuer (.auth/dev-issuer.json): no DEV_ISSUER_FILE, as a developer types it.
      const printed = await tokenWith({}, '--staff');
      expect(printed.code).toBe(0);
      const server = await startServerProcess(stack.engine.endpoint, { DATA_DIR: dataDir, DEV_ISSUER_FILE: '' });
      try {
        const ask = (authorization: string) =>
          fetch(server.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization },
            body: JSON.stringify({ query: '{ ordersByStatus(status: PAID, first: 1) { nodes { id } } }' }),
          });
        const accepted = await ask(`Bearer ${printed.stdout.trim()}`);
        expect(accepted.status).toBe(200);
        expect((await accepted.json()).errors).toBeUndefined();
        // A token of another issuer's key (the test process's): 401, naming the key file and the command.
        const refused = await ask(bearer(await openDevIssuer(issuerFile).then((issuer) => issuer.sign({ sub: 'x' }))).authorization);
        expect(refused.status).toBe(401);
        const body = await refused.json();
        expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
        expect(body.errors[0].message).toContain('the token was not signed by a key of the issuer');
        expect(body.errors[0].message).toContain('.auth/dev-issuer.json');
        expect(body.errors[0].message).toContain('npm run -s token -- --customer <id>');
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the key file', () => {
  it('is created once when several issuers open it together', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'issuer-race-')), 'dev-issuer.json');
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
