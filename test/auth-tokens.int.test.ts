/**
 * Bearer tokens against a real JWKS: the real server (`startServer`) with the production
 * authenticator (`authenticatorFor` with `AUTH_JWKS_URL`, as `readConfig` reads it), an identity
 * provider shaped like Cognito served by this test over HTTP on loopback (test/support/jwks.ts),
 * and real HTTP requests.
 *
 * Every refusal is HTTP 401, `UNAUTHENTICATED`, a `WWW-Authenticate` challenge, and no DynamoDB
 * request on the wire: a caller without a valid token costs the table nothing.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSPKI } from 'jose';
import { authenticatorFor } from '../src/auth';
import { readConfig } from '../src/boot/config';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { buildCustomer, customerItems, type CustomerFixture } from './support/fixtures';
import { cognitoClaims, signingKey, startIdentityProvider, type SigningKey, type TestIdentityProvider } from './support/jwks';

let idp: TestIdentityProvider;
let stack: Stack;
let rsa: SigningKey;
let ec: SigningKey;
let ana: CustomerFixture;
let bruno: CustomerFixture;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const CUSTOMER = 'query Customer($id: ID!) { customer(id: $id) { id name } }';

beforeAll(async () => {
  rsa = await signingKey('RS256');
  ec = await signingKey('ES256');
  idp = await startIdentityProvider(rsa, ec);
  const config = readConfig({ NODE_ENV: 'production', ...idp.env() });
  stack = await startStack({ authenticate: await authenticatorFor(config.auth, { jwksCooldownMs: 0 }) });
  ana = buildCustomer({ name: 'Ana', orders: 3, status: () => 'PENDING' });
  bruno = buildCustomer({ name: 'Bruno', orders: 1 });
  await stack.load([...customerItems(ana), ...customerItems(bruno)]);
});

afterAll(async () => {
  await stack?.close();
  await idp?.close();
});

/** Sends one operation and returns its response with the number of DynamoDB requests it caused. */
async function send(
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<{ response: GraphQLResponse; requests: number }> {
  stack.engine.wire.reset();
  const response = await stack.gql(query, variables, headers);
  return { response, requests: stack.engine.wire.count() };
}

/** 401, UNAUTHENTICATED, the Bearer challenge, no data, not one DynamoDB request. */
async function expectRefused(headers: Record<string, string>, challenge = 'Bearer error="invalid_token"') {
  const { response, requests } = await send(CUSTOMER, { id: ana.customer.id }, headers);
  expect(response.status).toBe(401);
  expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  expect(response.data ?? null).toBeNull();
  expect(response.headers.get('www-authenticate')).toBe(challenge);
  expect(requests).toBe(0);
  return response;
}

describe('tokens that verify', () => {
  it('an RS256 token and an ES256 token from the JWKS both pass', async () => {
    for (const key of [rsa, ec]) {
      const token = await idp.sign(key, cognitoClaims({ customerId: ana.customer.id }));
      const { response } = await send(CUSTOMER, { id: ana.customer.id }, bearer(token));
      expect(response.status).toBe(200);
      expect(response.errors).toBeUndefined();
      expect(response.data).toEqual({ customer: { id: ana.customer.id, name: 'Ana' } });
    }
  });

  it('a token expired less than the 30 s clock tolerance ago still passes', async () => {
    const token = await idp.sign(rsa, cognitoClaims({ customerId: ana.customer.id }), { expiresIn: -5 });
    const { response } = await send(CUSTOMER, { id: ana.customer.id }, bearer(token));
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ customer: { id: ana.customer.id, name: 'Ana' } });
  });

  it('follows key rotation by kid: a new key in the JWKS is fetched and trusted without a restart', async () => {
    const rotated = await signingKey('RS256');
    const token = await idp.sign(rotated, cognitoClaims({ customerId: ana.customer.id }));

    // Not served yet: refused, though the JWKS was fetched again to look for the kid.
    const before = idp.fetches();
    await expectRefused(bearer(token));
    expect(idp.fetches()).toBeGreaterThan(before);

    idp.serve(rsa, ec, rotated);
    const fetched = idp.fetches();
    const { response } = await send(CUSTOMER, { id: ana.customer.id }, bearer(token));
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ customer: { id: ana.customer.id, name: 'Ana' } });
    expect(idp.fetches()).toBe(fetched + 1);

    // The keys known before the rotation are still trusted, from the same fetched set.
    const old = await send(CUSTOMER, { id: ana.customer.id }, bearer(await idp.sign(ec, cognitoClaims({ customerId: ana.customer.id }))));
    expect(old.response.data).toEqual({ customer: { id: ana.customer.id, name: 'Ana' } });
    expect(idp.fetches()).toBe(fetched + 1);
  });
});

describe('tokens that do not verify: 401 UNAUTHENTICATED, no DynamoDB request', () => {
  it('an expired token (beyond the 30 s clock tolerance)', async () => {
    const token = await idp.sign(rsa, cognitoClaims({ customerId: ana.customer.id }), { expiresIn: -60 });
    const response = await expectRefused(bearer(token));
    expect(response.errors?.[0]?.message).toContain('expired');
  });

  it('a token for another audience (another app client)', async () => {
    await expectRefused(bearer(await idp.sign(rsa, cognitoClaims({ staff: true }), { audience: 'another-client-id' })));
  });

  it('a token of another issuer (another user pool), even signed by a trusted key', async () => {
    await expectRefused(
      bearer(
        await idp.sign(rsa, cognitoClaims({ staff: true }), { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_0therP00l' }),
      ),
    );
  });

  it('a token of a key the JWKS does not serve', async () => {
    const stranger = await signingKey('ES256', ec.kid); // the same kid, another key
    await expectRefused(bearer(await idp.sign(stranger, cognitoClaims({ staff: true }))));
  });

  it('alg: none', async () => {
    const claims = { ...cognitoClaims({ staff: true }), iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 3600 };
    await expectRefused(bearer(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`));
    await expectRefused(bearer(`${b64url({ alg: 'none', typ: 'JWT', kid: rsa.kid })}.${b64url(claims)}.${b64url('x')}`));
  });

  it('HS256 "signed" with the bytes of the RSA public key (algorithm confusion)', async () => {
    const claims = { ...cognitoClaims({ staff: true }), iss: idp.issuer, aud: idp.audience, exp: Math.floor(Date.now() / 1000) + 3600 };
    const publicPem = await exportSPKI(rsa.publicKey);
    for (const secret of [publicPem, JSON.stringify(rsa.jwk), Buffer.from(rsa.jwk.n as string, 'base64url')]) {
      const input = `${b64url({ alg: 'HS256', typ: 'JWT', kid: rsa.kid })}.${b64url(claims)}`;
      await expectRefused(bearer(`${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`));
    }
  });

  it('a tampered payload: a claim changed, the signature kept', async () => {
    const token = await idp.sign(rsa, cognitoClaims({ customerId: ana.customer.id }));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    await expectRefused(bearer(`${header}.${b64url({ ...claims, 'custom:customerId': bruno.customer.id })}.${signature}`));
    await expectRefused(bearer(`${header}.${b64url({ ...claims, 'cognito:groups': ['staff'] })}.${signature}`));
    await expectRefused(bearer(`${header}.${b64url({ ...claims, exp: (claims.exp as number) + 86_400 })}.${signature}`));
  });

  it('a malformed Authorization header', async () => {
    const good = await idp.sign(rsa, cognitoClaims({ customerId: ana.customer.id }));
    for (const authorization of [
      'Bearer',
      'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
      `Token ${good}`,
      `Bearer ${good} extra`,
      'Bearer not-a-jwt',
      `Bearer ${good.split('.').slice(0, 2).join('.')}`,
      `Bearer ${'a'.repeat(9000)}`,
    ]) {
      await expectRefused({ authorization });
    }
  });

  it('no token at all: no data (the challenge names no error, there was no token to be wrong)', async () => {
    await expectRefused({ authorization: '' }, 'Bearer');
  });
});

describe('Cognito claims make the principal', () => {
  it('custom:customerId: its own customer, and FORBIDDEN for another one, decided before any read', async () => {
    const token = await idp.sign(ec, cognitoClaims({ customerId: ana.customer.id }));
    const own = await send(CUSTOMER, { id: ana.customer.id }, bearer(token));
    expect(own.response.data).toEqual({ customer: { id: ana.customer.id, name: 'Ana' } });

    const other = await send(CUSTOMER, { id: bruno.customer.id }, bearer(token));
    expect(other.response.status).toBe(200);
    expect(other.response.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(other.response.data).toEqual({ customer: null });
    expect(other.requests).toBe(0);
  });

  it('cognito:groups [staff]: ordersByStatus; a customer token may not', async () => {
    const query = '{ ordersByStatus(status: PENDING, first: 10) { nodes { id customer { name } } } }';
    const staff = await send(query, {}, bearer(await idp.sign(rsa, cognitoClaims({ staff: true }))));
    expect(staff.response.errors).toBeUndefined();
    const nodes = (staff.response.data as { ordersByStatus: { nodes: Array<{ id: string; customer: { name: string } }> } }).ordersByStatus
      .nodes;
    expect(nodes.map((node) => node.id).sort()).toEqual(ana.orders.map((order) => order.id).sort());
    expect(nodes.every((node) => node.customer.name === 'Ana')).toBe(true);

    const customer = await send(query, {}, bearer(await idp.sign(rsa, cognitoClaims({ customerId: ana.customer.id }))));
    expect(customer.response.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(customer.requests).toBe(0);
  });
});
