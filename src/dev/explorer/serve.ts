/**
 * The development explorer over HTTP (server.ts routes here only outside production):
 *
 * - `GET /graphql` (or `/`) from a browser (`Accept: text/html`): the explorer page, GraphiQL with
 *   the Table view, built from npm packages (build.ts); it loads nothing but its own bundle, so it
 *   works offline. Apollo Sandbox is a link on the page, for those online.
 * - `GET /explorer/explorer.js`, `/explorer/explorer.css`: the bundle.
 * - `GET /explorer/favicon.svg` (the page's icon) and `/favicon.ico` (which browsers ask for
 *   anyway): the same SVG, a partition whose first rows one Query read.
 * - `GET /dev/partition`: the rows of a partition around a read (partition.ts).
 *
 * The page is same-origin with the API: its strict Content-Security-Policy allows scripts, data
 * and styles from this origin only (inline styles aside, which React's style props and GraphiQL's
 * editors set), so it cannot load or send anything elsewhere.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticate } from '../../auth';
import type { Table } from '../../dynamo/table';
import { BUNDLE_FILES, ensureExplorerBundle, EXPLORER_DIR } from './build';
import { partitionEndpoint } from './partition';

export const EXPLORER_ASSET_PATH = '/explorer/';
export const PARTITION_PATH = '/dev/partition';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const FAVICON_PATH = `${EXPLORER_ASSET_PATH}favicon.svg`;
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <rect x="1" y="1" width="30" height="30" rx="5" fill="#1f2937"/>
  <rect x="5" y="6" width="22" height="5" rx="1.5" fill="#2563eb"/>
  <rect x="5" y="13.5" width="22" height="5" rx="1.5" fill="#d97706"/>
  <rect x="5" y="21" width="22" height="5" rx="1.5" fill="#6b7280"/>
</svg>
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Explorer · single-table-graphql</title>
    <link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}" />
    <link rel="stylesheet" href="${EXPLORER_ASSET_PATH}${BUNDLE_FILES.css}" />
  </head>
  <body>
    <div id="explorer"><noscript>The explorer needs JavaScript; POST GraphQL to this URL otherwise.</noscript></div>
    <script type="module" src="${EXPLORER_ASSET_PATH}${BUNDLE_FILES.js}"></script>
  </body>
</html>
`;

export interface ExplorerOptions {
  table: Table;
  authenticate: Authenticate;
  /** Where the bundle is (default `EXPLORER_DIR`, build.ts); built there when stale. */
  bundleDir?: string;
}

/** Whether a request is a browser's navigation to the endpoint (as Apollo's landing pages decide it). */
export function wantsPage(req: IncomingMessage, pathname: string): boolean {
  return req.method === 'GET' && (pathname === '/graphql' || pathname === '/') && String(req.headers.accept ?? '').includes('text/html');
}

/**
 * Answers the explorer's requests; returns false for any other request (left to the caller).
 * Development only: the caller never calls it in production, so these paths are 404 there.
 */
export async function serveExplorer(options: ExplorerOptions, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const dir = options.bundleDir ?? EXPLORER_DIR;
  if (wantsPage(req, url.pathname)) {
    if (!(await bundled(dir, res))) return true;
    send(res, 200, 'text/html; charset=utf-8', PAGE, { 'content-security-policy': CONTENT_SECURITY_POLICY });
    return true;
  }
  if (req.method === 'GET' && (url.pathname === FAVICON_PATH || url.pathname === '/favicon.ico')) {
    send(res, 200, 'image/svg+xml', FAVICON, { 'cache-control': 'max-age=86400' });
    return true;
  }
  if (req.method === 'GET' && url.pathname.startsWith(EXPLORER_ASSET_PATH)) {
    const name = url.pathname.slice(EXPLORER_ASSET_PATH.length);
    const type =
      name === BUNDLE_FILES.js ? 'text/javascript; charset=utf-8' : name === BUNDLE_FILES.css ? 'text/css; charset=utf-8' : undefined;
    if (!type) return false;
    if (!(await bundled(dir, res))) return true;
    send(res, 200, type, await readFile(join(dir, name)));
    return true;
  }
  if (url.pathname === PARTITION_PATH) {
    if (req.method !== 'GET') {
      send(res, 405, 'application/json; charset=utf-8', JSON.stringify({ error: 'GET only' }), { allow: 'GET' });
      return true;
    }
    const result = await partitionEndpoint(options.table, options.authenticate, req.headers.authorization, url.searchParams);
    send(
      res,
      result.status,
      'application/json; charset=utf-8',
      JSON.stringify(result.body),
      result.status === 401 ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {},
    );
    return true;
  }
  return false;
}

/** Builds the bundle when stale; without esbuild (dev dependencies not installed) answers 503 saying so. */
async function bundled(dir: string, res: ServerResponse): Promise<boolean> {
  try {
    await ensureExplorerBundle(dir);
    return true;
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    send(
      res,
      503,
      'text/plain; charset=utf-8',
      `The explorer could not be built (npm install installs esbuild, a devDependency): ${reason}\n`,
    );
    return false;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  // The page and the partitions are one caller's; the bundle changes with its sources: never cached.
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(body);
}
