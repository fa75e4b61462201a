/**
 * An identity provider for tests, shaped like Amazon Cognito: signing keys (RS256 or ES256, each
 * with a `kid`), a JWKS served over real HTTP on a free loopback port (what `AUTH_JWKS_URL`
 * points at), and tokens with Cognito's claims (`sub`, `custom:customerId`, `cognito:groups`,
 * `iss`, `aud`, `exp`). The served key set can be changed while it runs (key rotation), it can be
 * made to fail (an outage of the identity provider), and the server counts how often it was fetched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** Issuer and audience as Cognito writes them: the user pool's URL, the app client's id. */
export const TEST_ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_T3stP00l1';
export const TEST_AUDIENCE = '5testclient0id1for2the3api';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public key as the JWKS serves it. */
  jwk: JWK;
}

export async function signingKey(alg: 'RS256' | 'ES256', kid = `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** Claims of a Cognito ID token (without iss, aud, exp, iat: `sign` adds those). */
export function cognitoClaims(who: { customerId?: string; staff?: boolean; sub?: string } = {}): JWTPayload {
  const sub = who.sub ?? randomUUID();
  return {
    sub,
    token_use: 'id',
    'cognito:username': sub,
    ...(who.customerId ? { 'custom:customerId': who.customerId } : {}),
    ...(who.staff ? { 'cognito:groups': ['staff'] } : {}),
  };
}

export interface SignOptions {
  issuer?: string;
  audience?: string;
  /** Seconds from now until `exp`; negative for a token that has expired. Default one hour. */
  expiresIn?: number;
}

export interface TestIdentityProvider {
  /** The JWKS URL (`AUTH_JWKS_URL`). */
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** What the JWKS answers from now on. */
  serve(...keys: SigningKey[]): void;
  /**
   * From now on the JWKS fails (undefined: it works again): `status` answers HTTP 503, `garbage`
   * answers 200 with a body that is not JSON, `reset` drops the connection without an answer.
   */
  fail(how: 'status' | 'garbage' | 'reset' | undefined): void;
  /** How many times the JWKS was fetched (failed fetches included). */
  fetches(): number;
  sign(key: SigningKey, claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** The environment a server or Lambda reads (src/boot/config.ts). */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startIdentityProvider(...keys: SigningKey[]): Promise<TestIdentityProvider> {
  let served = keys;
  let fetches = 0;
  let failing: 'status' | 'garbage' | 'reset' | undefined;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.statusCode = 404;
      res.end();
      return;
    }
    fetches++;
    if (failing === 'reset') return void req.socket.destroy();
    if (failing === 'status') {
      res.statusCode = 503;
      return void res.end('upstream identity service down at 10.0.0.7:8443');
    }
    if (failing === 'garbage') return void res.end('<html>maintenance</html>');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: served.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const jwksUrl = `http://127.0.0.1:${port}/.well-known/jwks.json`;
  return {
    jwksUrl,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    serve(...next) {
      served = next;
    },
    fail(how) {
      failing = how;
    },
    fetches: () => fetches,
    sign(key, claims, options = {}) {
      const exp = Math.floor(Date.now() / 1000) + (options.expiresIn ?? 3600);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? TEST_ISSUER)
        .setAudience(options.audience ?? TEST_AUDIENCE)
        .setIssuedAt(exp - 3600) // Cognito's tokens live an hour
        .setExpirationTime(exp)
        .sign(key.privateKey);
    },
    env: () => ({ AUTH_JWKS_URL: jwksUrl, AUTH_ISSUER: TEST_ISSUER, AUTH_AUDIENCE: TEST_AUDIENCE }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
