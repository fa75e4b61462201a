/**
 * CORS for the long-lived HTTP server (server.ts): which browser origins may call the API, and the
 * headers that tell the browser so. In Lambda, API Gateway's `CorsConfiguration` (template.yaml)
 * answers preflights and adds these headers itself, so lambda.ts needs none of this.
 *
 * The allow-list (`CORS_ORIGINS`, comma-separated; development default `http://localhost:*`,
 * `http://127.0.0.1:*` and Apollo Sandbox's `https://studio.apollographql.com`) holds exact
 * origins (`https://app.example.com`), origins whose port is `*` (any port, or none), or `*` alone (any origin). Credentials are never allowed: the token
 * travels in the `Authorization` header, not in a cookie, so no `Access-Control-Allow-Credentials`.
 * A refused origin gets no CORS header at all, and its browser withholds the response.
 * Apollo's CSRF prevention stays on regardless: a simple (non-preflighted) request is still refused.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSISTENCY_HEADER, READ_AFTER_HEADER } from '../request/consistency';

export const CORS_METHODS = 'GET, POST, OPTIONS';
/** Request headers a browser may send: what Apollo clients and this API use. */
export const CORS_REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'apollo-require-preflight',
  'x-apollo-operation-name',
  'x-request-id',
  'x-explain',
  READ_AFTER_HEADER,
  CONSISTENCY_HEADER,
  // Apollo's client-awareness headers (Apollo Client's `clientAwareness`, Sandbox).
  'apollographql-client-name',
  'apollographql-client-version',
];
/** Response headers a browser script may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', READ_AFTER_HEADER];
/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

export type OriginCheck = (origin: string | undefined) => boolean;

/** The origin check of an allow-list; throws on an entry that is not an origin. */
export function originMatcher(allowed: readonly string[]): OriginCheck {
  const rules = allowed.map(parseRule);
  return (origin) => {
    if (origin === undefined || origin === 'null') return false;
    const given = parseOrigin(origin);
    if (!given) return false;
    return rules.some(
      (rule) =>
        rule === '*' || (rule.scheme === given.scheme && rule.host === given.host && (rule.port === '*' || rule.port === given.port)),
    );
  };
}

interface Origin {
  scheme: string;
  host: string;
  port: string;
}

const ORIGIN = /^(https?):\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}|\*))?$/;

function parseRule(entry: string): Origin | '*' {
  if (entry === '*') return '*';
  const rule = parseOrigin(entry, true);
  if (!rule) throw new Error(`CORS_ORIGINS: "${entry}" is not an origin such as https://app.example.com or http://localhost:*`);
  return rule;
}

function parseOrigin(text: string, wildcardPort = false): Origin | undefined {
  const match = ORIGIN.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const [, scheme = '', host = '', port] = match;
  if (port === '*') return wildcardPort ? { scheme, host, port } : undefined;
  const defaultPort = scheme === 'https' ? '443' : '80';
  return { scheme, host, port: port === undefined ? defaultPort : String(Number(port)) };
}

/**
 * Applies CORS to one request. Every response says it varies by `Origin`; an allowed origin gets
 * `Access-Control-Allow-Origin` (and, on actual requests, the exposed headers). Returns true when
 * the request was a preflight (`OPTIONS`) and has been answered (204), whatever its origin.
 */
export function applyCors(allowed: OriginCheck, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  const preflight = req.method === 'OPTIONS';
  res.setHeader('Vary', 'Origin');
  const ok = allowed(origin);
  if (ok) res.setHeader('Access-Control-Allow-Origin', origin as string);
  if (!preflight) {
    if (ok) res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
    return false;
  }
  if (ok) {
    res.setHeader('Access-Control-Allow-Methods', CORS_METHODS);
    res.setHeader('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS.join(', '));
    res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
    // Chrome's Private Network Access: a public page (Sandbox) calling a loopback server asks first.
    if (req.headers['access-control-request-private-network'] === 'true') res.setHeader('Access-Control-Allow-Private-Network', 'true');
  }
  res.setHeader('Allow', CORS_METHODS);
  res.statusCode = 204;
  res.end();
  return true;
}
