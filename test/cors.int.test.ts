/**
 * CORS on the real HTTP server (src/admission/cors.ts used by src/http/server.ts), spoken over HTTP the way a
 * browser speaks it (node:http, so `Origin` is sent as given): the preflight of an allowed origin,
 * nothing for a refused one, the headers of actual responses, and Apollo's CSRF prevention still
 * on. test/cors.browser.int.test.ts does the same with a real browser.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/boot/config';
import { originMatcher } from '../src/admission/cors';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { buildCustomer, customerItems } from './support/fixtures';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ALLOWED = 'http://localhost:5173';
const REFUSED = 'https://evil.example';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
  'access-control-allow-credentials',
];
const corsHeadersOf = (answer: Answer) => CORS_HEADERS.filter((name) => answer.headers[name] !== undefined);

describe('originMatcher', () => {
  it('matches exact origins, any port for `:*`, and nothing else', () => {
    const allowed = originMatcher(['http://localhost:*', 'https://app.example.com', 'http://[::1]:*']);
    for (const origin of [
      'http://localhost:5173',
      'http://localhost',
      'HTTP://LOCALHOST:3000',
      'https://app.example.com',
      'https://app.example.com:443',
      'http://[::1]:8080',
    ]) {
      expect(allowed(origin), origin).toBe(true);
    }
    for (const origin of [
      undefined,
      '',
      'null',
      'https://localhost:5173',
      'http://localhost.evil.example:5173',
      'http://127.0.0.1:5173',
      'https://app.example.com:8443',
      'http://app.example.com',
      'https://app.example.com.evil.example',
      'https://evil.example/https://app.example.com',
      'http://localhost:5173/path',
    ]) {
      expect(allowed(origin), String(origin)).toBe(false);
    }
  });

  it('`*` allows any origin; an empty list none; an entry that is not an origin is refused at start', () => {
    expect(originMatcher(['*'])('https://anything.example')).toBe(true);
    expect(originMatcher([])('http://localhost:5173')).toBe(false);
    expect(() => originMatcher(['app.example.com'])).toThrow(/CORS_ORIGINS/);
    expect(() => originMatcher(['https://app.example.com/'])).toThrow(/CORS_ORIGINS/);
  });

  it('development allows http://localhost:*, http://127.0.0.1:* and Apollo Sandbox; production only what CORS_ORIGINS lists', () => {
    const development = originMatcher(readConfig({}).corsOrigins);
    expect(development('http://localhost:3000')).toBe(true);
    expect(development('http://127.0.0.1:8080')).toBe(true);
    expect(development('https://studio.apollographql.com')).toBe(true);
    expect(development('https://app.example.com')).toBe(false);
    const production = {
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
      AUTH_ISSUER: 'https://issuer.example',
      AUTH_AUDIENCE: 'api',
    };
    expect(readConfig(production).corsOrigins).toEqual([]);
    expect(readConfig({ ...production, CORS_ORIGINS: ' https://app.example.com , https://admin.example.com' }).corsOrigins).toEqual([
      'https://app.example.com',
      'https://admin.example.com',
    ]);
  });
});

describe('the server with CORS_ORIGINS=http://localhost:*', () => {
  let stack: Stack;
  let customerId: string;
  let auth: Record<string, string>;
  const query = () => JSON.stringify({ query: 'query Customer($id: ID!) { customer(id: $id) { name } }', variables: { id: customerId } });

  beforeAll(async () => {
    stack = await startStack({ corsOrigins: ['http://localhost:*'] });
    const fixture = buildCustomer({ name: 'Ana' });
    customerId = fixture.customer.id;
    await stack.load(customerItems(fixture));
    auth = bearer(await tokens.staff());
  });
  afterAll(async () => stack?.close());

  it('answers the preflight of an allowed origin: 204, its origin, methods, headers, max age, no credentials', async () => {
    const answer = await send(stack.server.url, 'OPTIONS', {
      origin: ALLOWED,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    });
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['access-control-allow-methods']).toBe('GET, POST, OPTIONS');
    const allowedHeaders = String(answer.headers['access-control-allow-headers'])
      .split(',')
      .map((name) => name.trim());
    expect(allowedHeaders).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'apollo-require-preflight',
        'x-apollo-operation-name',
        'x-request-id',
        'x-explain',
      ]),
    );
    expect(Number(answer.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('gives a refused origin no CORS header at all, preflight or not, and reads nothing for its preflight', async () => {
    stack.engine.wire.reset();
    const preflight = await send(stack.server.url, 'OPTIONS', {
      origin: REFUSED,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    });
    expect(preflight.status).toBe(204);
    expect(corsHeadersOf(preflight)).toEqual([]);
    expect(preflight.headers.vary).toBe('Origin');
    expect(stack.engine.wire.count()).toBe(0);
    for (const origin of [REFUSED, 'http://127.0.0.1:5173', 'null']) {
      const actual = await send(stack.server.url, 'POST', { origin, 'content-type': 'application/json', ...auth }, query());
      expect(actual.status).toBe(200); // the server answers; the browser withholds it from the page
      expect(corsHeadersOf(actual)).toEqual([]);
    }
  });

  it('marks actual responses to an allowed origin: allow-origin, exposed headers, Vary', async () => {
    const answer = await send(stack.server.url, 'POST', { origin: ALLOWED, 'content-type': 'application/json', ...auth }, query());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ data: { customer: { name: 'Ana' } }, extensions: expect.anything() });
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(
      String(answer.headers['access-control-expose-headers'])
        .split(',')
        .map((name) => name.trim()),
    ).toEqual(['x-request-id', 'retry-after', 'x-read-after']);
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    expect(answer.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('marks refusals too, so a browser page can read its 401', async () => {
    const answer = await send(stack.server.url, 'POST', { origin: ALLOWED, 'content-type': 'application/json' }, query());
    expect(answer.status).toBe(401);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it("keeps Apollo's CSRF prevention: simple requests from an allowed origin are still refused", async () => {
    stack.engine.wire.reset();
    const textPlain = await send(stack.server.url, 'POST', { origin: ALLOWED, 'content-type': 'text/plain', ...auth }, query());
    expect(textPlain.status).toBe(400);
    expect(textPlain.body).toContain('Cross-Site Request Forgery');
    const url = `${stack.server.url}?query=${encodeURIComponent('{ __typename }')}`;
    const simpleGet = await send(url, 'GET', { origin: ALLOWED, ...auth });
    expect(simpleGet.status).toBe(400);
    expect(simpleGet.body).toContain('Cross-Site Request Forgery');
    const preflightedGet = await send(url, 'GET', { origin: ALLOWED, 'apollo-require-preflight': 'true', ...auth });
    expect(preflightedGet.status).toBe(200);
    expect(stack.engine.wire.count()).toBe(0);
  });
});
