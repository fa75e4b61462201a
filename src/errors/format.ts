/**
 * What a client sees of an error, on every transport: HTTP and Lambda (Apollo's `formatError`,
 * src/http/apollo.ts) and WebSocket (src/live/websocket.ts). The codes are the registry's
 * (src/errors/codes.ts: the domain's, src/model/errors.ts, and the transport's); AWS and network faults are recognised in src/dynamo/errors.ts.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isDomainError, UNAVAILABLE_MESSAGES, type UnavailableReason } from '../model/errors';
import { Code } from './codes';
import { transientFault } from '../dynamo/errors';

export const GENERIC_MESSAGE = 'Internal server error';

/**
 * Why an error makes its request UNAVAILABLE: the model's `unavailable(...)`, or a transient
 * DynamoDB fault (src/dynamo/errors.ts) that reached the top with no code of its own. `code` is
 * the GraphQL error's (an error that has its own, such as the identity provider's, keeps it).
 */
export function unavailability(error: unknown, code: unknown): { reason: UnavailableReason; retryAfterSeconds: number } | undefined {
  const original = rootCause(error);
  if (isDomainError(original)) {
    return original.code === Code.UNAVAILABLE
      ? { reason: original.reason ?? 'unreachable', retryAfterSeconds: original.retryAfterSeconds ?? 1 }
      : undefined;
  }
  return code === undefined || code === Code.INTERNAL_SERVER_ERROR ? transientFault(original) : undefined;
}

/**
 * How an error is logged, on every transport (src/http/plugins.ts, src/live/websocket.ts): once,
 * `warn` for contention and outages (expected under load or while DynamoDB is away), `error` for
 * what would reach the client as INTERNAL_SERVER_ERROR (ours), nothing for the client's own
 * (domain errors, parse, validation, coercion, refusals: anything with a code of its own).
 */
export function logLevel(error: unknown, code: unknown): { level: 'warn'; reason: UnavailableReason } | { level: 'error' } | undefined {
  const original = rootCause(error);
  const outage = unavailability(original, code);
  if (outage) return { level: 'warn', reason: outage.reason };
  if (isDomainError(original) || (code !== undefined && code !== Code.INTERNAL_SERVER_ERROR)) return undefined;
  return { level: 'error' };
}

/** The error a GraphQLError wraps, however deep (a resolver's, or the context function's). */
export function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; current instanceof GraphQLError && current.originalError && depth < 5; depth++) current = current.originalError;
  return current;
}

/** graphql's suggestions ("Did you mean "x"?", "Did you mean the enum value "Y"?") map the schema: not shown in production. */
export function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean\b[^?]*\?/g, '').trim();
}

export interface ErrorFormatting {
  production: boolean;
  /** Shown on INTERNAL_SERVER_ERROR and UNAVAILABLE (HTTP adds it in `maskInternalErrors`). */
  requestId?: string | undefined;
}

/**
 * What a client sees of any error, on every transport (Apollo's `formatError` for HTTP and Lambda,
 * src/live/websocket.ts's `formatError`): a domain error keeps its message and stable code (UNAVAILABLE
 * with `retryable`, `retryAfterSeconds`, `reason`); a transient DynamoDB fault (throttled,
 * unreachable, exhausted conflicts: src/dynamo/errors.ts) becomes UNAVAILABLE with a generic,
 * stable message; any other error without a code of its own is INTERNAL_SERVER_ERROR, generic
 * in production; in production no message carries graphql's suggestions.
 */
export function formatClientError(
  formatted: GraphQLFormattedError,
  error: unknown,
  // Masked unless told otherwise: forgetting the option can only hide details, never show them.
  options: ErrorFormatting = { production: true },
): GraphQLFormattedError {
  const original = rootCause(error);
  const code = formatted.extensions?.code;
  const requestId = options.requestId === undefined ? {} : { requestId: options.requestId };
  const outage = unavailability(original, code);
  if (outage) {
    const message = isDomainError(original) ? original.message : UNAVAILABLE_MESSAGES[outage.reason];
    const extensions = { code: Code.UNAVAILABLE, retryable: true, retryAfterSeconds: outage.retryAfterSeconds, reason: outage.reason };
    return { message, locations: formatted.locations, path: formatted.path, extensions: { ...extensions, ...requestId } };
  }
  if (isDomainError(original)) {
    return {
      ...formatted,
      message: original.message,
      extensions: { code: original.code, ...(original.field ? { field: original.field } : {}) },
    };
  }
  if (code === undefined || code === Code.INTERNAL_SERVER_ERROR) {
    if (!options.production)
      return { ...formatted, extensions: { ...formatted.extensions, code: Code.INTERNAL_SERVER_ERROR, ...requestId } };
    // Production: no engine text, stack or extension of the original reaches the client.
    return {
      message: GENERIC_MESSAGE,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: Code.INTERNAL_SERVER_ERROR, ...requestId },
    };
  }
  return options.production ? { ...formatted, message: withoutSuggestions(formatted.message) } : formatted;
}
