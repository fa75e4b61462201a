/**
 * Refusals: what admission answers instead of running an operation, as values. A refusal is the
 * `GraphQLError` HTTP answers with (its code from the registry, src/errors/codes.ts, and its HTTP
 * status in `extensions.http`, which Apollo turns into the response's status and headers and
 * strips); WebSocket sends the same error without the HTTP part (`withoutHttp`).
 */
import { GraphQLError } from 'graphql';
import type { Code } from './codes';

export interface RefusalOptions {
  /** The HTTP status (400 unless told). */
  status?: number;
  /** Response headers (HTTP only: `Retry-After`, `WWW-Authenticate`, ...). */
  headers?: ReadonlyArray<readonly [string, string]>;
  /** Extensions besides the code (limits and figures, shown outside production only by the caller's choice). */
  extensions?: Record<string, unknown>;
}

/** The refusal of a request before it runs: `code`, `message`, HTTP status (400 by default). */
export function refusal(code: Code, message: string, options: RefusalOptions = {}): GraphQLError {
  const http = { status: options.status ?? 400, ...(options.headers ? { headers: new Map(options.headers) } : {}) };
  return new GraphQLError(message, { extensions: { code, ...options.extensions, http } });
}

/** The same refusal for a transport without HTTP statuses (WebSocket): its extensions but `http`. */
export function withoutHttp(error: GraphQLError): GraphQLError {
  if (!('http' in error.extensions)) return error;
  const { http: _http, ...extensions } = error.extensions;
  return new GraphQLError(error.message, { extensions });
}
