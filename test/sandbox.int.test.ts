/**
 * Apollo Sandbox (https://studio.apollographql.com) against a development server with the default
 * origins (`readConfig({}).corsOrigins`, as `npm start` runs): its preflight (with Chrome's Private
 * Network Access question), its POSTed operations and its WebSocket handshake are allowed; a
 * production server with the default (empty) list refuses the same origin.
 */
import { request } from 'node:http';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { readConfig } from '../src/boot/config';

const SANDBOX = 'https://studio.apollographql.com';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ corsOrigins: readConfig({}).corsOrigins });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

function preflight(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'OPTIONS',
      headers: {
        origin: SANDBOX,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,apollographql-client-name,apollographql-client-version',
        'access-control-request-private-network': 'true',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

function upgrade(url: string, origin: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws', { origin });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('error', () => undefined);
  });
}

describe('Apollo Sandbox against npm start (development defaults)', () => {
  it('passes the preflight, with the headers it sends and the private-network answer', async () => {
    const answer = await preflight(stack.server.url);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(SANDBOX);
    expect(answer.headers['access-control-allow-private-network']).toBe('true');
    const allowed = String(answer.headers['access-control-allow-headers']).split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'apollographql-client-name', 'apollographql-client-version']),
    );
  });

  it('runs a POSTed query and reads its answer (allow-origin on the response)', async () => {
    const res = await fetch(stack.server.url, {
      method: 'POST',
      headers: {
        origin: SANDBOX,
        'content-type': 'application/json',
        'apollographql-client-name': 'ApolloSandbox',
        ...bearer(await tokens.staff()),
      },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SANDBOX);
    expect(await res.json()).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('opens its subscriptions WebSocket; an origin not on the list is 403', async () => {
    expect(await upgrade(stack.server.url, SANDBOX)).toBe(101);
    expect(await upgrade(stack.server.url, 'https://elsewhere.example')).toBe(403);
  });

  it('is not on the production list', () => {
    const production = readConfig({
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
      AUTH_ISSUER: 'https://issuer.example',
      AUTH_AUDIENCE: 'api',
    });
    expect(production.corsOrigins).not.toContain(SANDBOX);
  });
});
