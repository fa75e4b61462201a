/**
 * CORS as a real browser enforces it: headless Chromium (puppeteer-core; Debian's `chromium`, which
 * .ci/run installs when missing) loads a page from an allowed origin and one from a refused origin,
 * and each page `fetch`es the GraphQL endpoint of the real server with `Authorization: Bearer` and
 * `content-type: application/json`, which makes the browser send a preflight first.
 *
 * The server allows `http://localhost:*` only. Both pages come from one loopback page server, as
 * `http://localhost:<port>` (allowed) and `http://127.0.0.1:<port>` (refused: another origin).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import { launchChromium } from './support/browser';
import { startStack, type Stack } from './support/stack';
import { tokens } from './support/auth';
import { buildCustomer, customerItems } from './support/fixtures';

interface Seen {
  method: string;
  origin: string | undefined;
  headers: IncomingHttpHeaders;
}

let stack: Stack;
let pages: Server;
let pagePort: number;
let browser: Browser | undefined;
let customerId: string;
let token: string;
const seen: Seen[] = [];

beforeAll(async () => {
  stack = await startStack({ corsOrigins: ['http://localhost:*'] });
  const fixture = buildCustomer({ name: 'Ana Browser' });
  customerId = fixture.customer.id;
  await stack.load(customerItems(fixture));
  token = await tokens.staff();
  // Every request the GraphQL server receives, as it arrived (preflights included).
  stack.server.http.on('request', (req) => {
    seen.push({ method: req.method ?? '', origin: req.headers.origin, headers: req.headers });
  });

  pages = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><html><head><title>frontend</title></head><body>a frontend</body></html>');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagePort = (pages.address() as AddressInfo).port;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  if (browser) {
    const child = browser.process();
    await browser.close().catch(() => child?.kill('SIGKILL'));
  }
  await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
  await stack?.close();
}, 30_000);

type Outcome = { ok: true; status: number; body: any; requestId: string | null } | { ok: false; name: string; message: string };

/** Opens the page at `origin` and has it fetch the GraphQL endpoint, as a frontend would. */
async function fetchFrom(origin: string): Promise<Outcome> {
  const page = await (browser as Browser).newPage();
  try {
    await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 15_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { location: { origin: string } }).location.origin)).toBe(origin);
    return await page.evaluate(
      async (url: string, bearer: string, body: string): Promise<Outcome> => {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body,
          });
          return { ok: true, status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
        } catch (error) {
          return { ok: false, name: (error as Error).name, message: (error as Error).message };
        }
      },
      stack.server.url,
      token,
      JSON.stringify({ query: 'query Customer($id: ID!) { customer(id: $id) { id name } }', variables: { id: customerId } }),
    );
  } finally {
    await page.close();
  }
}

describe('a browser calling the API from another origin', () => {
  it('an allowed origin (http://localhost:<port>) gets the data, after a preflight the server answered', async () => {
    const origin = `http://localhost:${pagePort}`;
    const outcome = await fetchFrom(origin);
    // x-request-id is readable by the page only because the server exposes it.
    expect(outcome).toEqual({
      ok: true,
      status: 200,
      body: expect.objectContaining({ data: { customer: { id: customerId, name: 'Ana Browser' } } }),
      requestId: expect.any(String),
    });

    const fromPage = seen.filter((request) => request.origin === origin);
    expect(fromPage.map((request) => request.method)).toEqual(['OPTIONS', 'POST']);
    const preflight = fromPage[0] as Seen;
    expect(preflight.headers['access-control-request-method']).toBe('POST');
    expect(String(preflight.headers['access-control-request-headers']).split(',').sort()).toEqual(['authorization', 'content-type']);
    expect(preflight.headers.authorization).toBeUndefined(); // a preflight never carries the token
    expect((fromPage[1] as Seen).headers.authorization).toBe(`Bearer ${token}`);
  });

  it('a refused origin (http://127.0.0.1:<port>) gets a TypeError: the preflight fails, the request is never sent', async () => {
    const origin = `http://127.0.0.1:${pagePort}`;
    stack.engine.wire.reset();
    const outcome = await fetchFrom(origin);
    expect(outcome).toEqual({ ok: false, name: 'TypeError', message: expect.any(String) });
    expect(seen.filter((request) => request.origin === origin).map((request) => request.method)).toEqual(['OPTIONS']);
    expect(stack.engine.wire.count()).toBe(0);
  });
});
