/**
 * The identity provider down (src/auth/key-set.ts): a JWKS that cannot be fetched is HTTP 503
 * `UNAVAILABLE` (reason `identity-provider`) with `Retry-After` and a masked message, never a 500
 * nor a 401; fetches are bounded by a cooldown after a failed fetch as after a successful one, so
 * tokens naming made-up `kid`s cannot make the server fetch on every request; and a key withdrawn
 * from the JWKS stops verifying within the minute docs/security.md promises. A real JWKS over HTTP on
 * loopback (test/support/jwks.ts), made to fail or stopped; the real server in production.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatorFor, IdentityProviderUnavailable, KEY_SET_DEFAULTS } from '../src/auth';
import { remoteKeySet } from '../src/auth/key-set';
import { createAuthenticator } from '../src/auth/tokens';
import { readConfig } from '../src/boot/config';
import { VERIFIED_TOKEN_TTL_MS } from '../src/request/context';
import { UNAVAILABLE_MESSAGES } from '../src/model';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import {
  cognitoClaims,
  signingKey,
  startIdentityProvider,
  TEST_AUDIENCE,
  TEST_ISSUER,
  type SigningKey,
  type TestIdentityProvider,
} from './support/jwks';

const FAILURE_COOLDOWN_MS = 1_500;
const QUERY = '{ __typename products(first: 1) { nodes { sku } } }';
const LEAKS = /fetch failed|ECONN|10\.0\.0\.7|127\.0\.0\.1|HTTP 503|maintenance|key set answered/i;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let idp: TestIdentityProvider;
let stack: Stack;
let rsa: SigningKey;
let stranger: SigningKey;
const lines: Array<Record<string, any>> = [];

beforeAll(async () => {
  rsa = await signingKey('RS256');
  stranger = await signingKey('ES256');
  idp = await startIdentityProvider(rsa);
  const config = readConfig({ NODE_ENV: 'production', ...idp.env() });
  const authenticate = await authenticatorFor(config.auth, { jwksCooldownMs: 60_000, jwksFailureCooldownMs: FAILURE_COOLDOWN_MS });
  stack = await startStack({ production: true, authenticate, log: (line) => lines.push(line) });
});
afterAll(async () => {
  await stack?.close();
  await idp?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A token of a key the JWKS has never served, naming a kid of its own. */
const unknownKid = (i: number) => idp.sign({ ...stranger, kid: `made-up-${i}-${Date.now()}` }, cognitoClaims({ staff: true }));

function expectUnavailable(response: GraphQLResponse) {
  expect(response.status).toBe(503);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= Math.ceil(FAILURE_COOLDOWN_MS / 1000)).toBe(true);
  expect(response.errors).toEqual([
    {
      message: UNAVAILABLE_MESSAGES['identity-provider'],
      extensions: {
        code: 'UNAVAILABLE',
        retryable: true,
        retryAfterSeconds: retryAfter,
        reason: 'identity-provider',
        requestId: response.headers.get('x-request-id'),
      },
    },
  ]);
  expect(response.data ?? null).toBeNull();
  expect(JSON.stringify(response)).not.toMatch(LEAKS);
}

describe('the identity provider down', () => {
  it('is HTTP 503 UNAVAILABLE with Retry-After, masked, and 50 requests (unknown kids too) make one fetch', async () => {
    idp.fail('status');
    const token = await idp.sign(rsa, cognitoClaims({ staff: true }));
    stack.engine.wire.reset();
    const responses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => stack.gql(QUERY, {}, bearer(i % 2 ? token : await unknownKid(i)))),
    );
    for (const response of responses) expectUnavailable(response);
    expect(idp.fetches()).toBe(1); // one fetch in flight at a time, then none within the failure cooldown
    expect(stack.engine.wire.count()).toBe(0);
    // Logged at warn with the reason, never at error: an outage, not a bug.
    const logged = lines.filter((line) => line.msg === 'request unavailable');
    expect(logged.length).toBe(50);
    expect(logged.every((line) => line.level === 40 && line.reason === 'identity-provider')).toBe(true);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);

    // The websocket handshake is not "Unauthorized" either, and does not leak the fetch error.
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => {
      const client = createClient({
        url: stack.server.url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { Authorization: `Bearer ${token}` },
        on: { closed: (event) => resolve(event as { code: number; reason: string }) },
      });
      client.subscribe({ query: 'subscription { myOrderEvents { eventId } }' }, { next() {}, error() {}, complete() {} });
    });
    expect(closed.code).toBe(1013); // try again later, not Unauthorized (4401) nor an internal error (4500)
    expect(String(closed.reason)).not.toMatch(LEAKS);
    expect(idp.fetches()).toBe(1);

    // Back up: the first request after the cooldown fetches once and passes.
    await sleep(FAILURE_COOLDOWN_MS);
    idp.fail(undefined);
    const back = await stack.gql(QUERY, {}, bearer(token));
    expect(back.status).toBe(200);
    expect(back.errors).toBeUndefined();
    expect(idp.fetches()).toBe(2);
  });

  it('while it is up, 50 unknown kids make at most one fetch per cooldown (401 each)', async () => {
    const before = idp.fetches();
    const responses = await Promise.all(Array.from({ length: 50 }, async (_, i) => stack.gql(QUERY, {}, bearer(await unknownKid(i)))));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(401));
    expect(idp.fetches() - before).toBeLessThanOrEqual(1);
  });

  it('once its keys are cached, a failing provider still verifies their tokens and fetches nothing for unknown kids', async () => {
    idp.fail('reset');
    try {
      const before = idp.fetches();
      const fresh = await stack.gql(QUERY, {}, bearer(await idp.sign(rsa, cognitoClaims({ staff: true }))));
      expect(fresh.status).toBe(200);
      expect((await stack.gql(QUERY, {}, bearer(await unknownKid(99)))).status).toBe(401);
      expect(idp.fetches()).toBe(before);
    } finally {
      idp.fail(undefined);
    }
  });
});

describe('every way a fetch fails is IdentityProviderUnavailable, with a generic message', () => {
  it.each(['status', 'garbage', 'reset', 'stopped'] as const)('%s', async (how) => {
    const own = await startIdentityProvider(rsa);
    const authenticate = createAuthenticator({
      customer: 'custom:customerId',
      groups: 'cognito:groups',
      staffGroup: 'staff',
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
      keys: { url: own.jwksUrl, failureCooldownMs: 60_000 },
    });
    const token = await own.sign(rsa, cognitoClaims({ staff: true }));
    if (how === 'stopped') await own.close();
    else own.fail(how);
    try {
      const error = await authenticate(`Bearer ${token}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IdentityProviderUnavailable);
      expect((error as Error).message).not.toMatch(LEAKS);
      expect((error as IdentityProviderUnavailable).retryAfterSeconds).toBe(60);
      expect((error as Error).cause).toBeDefined(); // the real failure, for the log line
      // Within the cooldown: the same answer at once, no second fetch.
      await expect(authenticate(`Bearer ${token}`)).rejects.toBeInstanceOf(IdentityProviderUnavailable);
      if (how !== 'stopped') expect(own.fetches()).toBe(1);
    } finally {
      if (how !== 'stopped') await own.close();
    }
  });
});

describe('a key withdrawn from the JWKS', () => {
  it('stops verifying within a minute: 30 s of key-set cache plus 30 s of the verified-token memo', async () => {
    expect(KEY_SET_DEFAULTS.cacheMaxAgeMs + VERIFIED_TOKEN_TTL_MS).toBeLessThanOrEqual(60_000);
    const withdrawn = await signingKey('ES256');
    const own = await startIdentityProvider(withdrawn, rsa);
    let now = 1_000_000;
    try {
      const keys = remoteKeySet(new URL(own.jwksUrl), { ...KEY_SET_DEFAULTS, now: () => now });
      const verify = async (key: SigningKey) =>
        jwtVerify(await own.sign(key, cognitoClaims({ staff: true })), keys, { issuer: TEST_ISSUER, audience: TEST_AUDIENCE });
      await verify(withdrawn);
      own.serve(rsa); // the provider withdraws the key
      now += KEY_SET_DEFAULTS.cacheMaxAgeMs - 1;
      await verify(withdrawn); // still inside the cache
      expect(own.fetches()).toBe(1);
      now += 1;
      await expect(verify(withdrawn)).rejects.toThrow(/no applicable key/i);
      await verify(rsa);
      expect(own.fetches()).toBe(2);
    } finally {
      await own.close();
    }
  });
});
