/**
 * The error registry: every error a client may act on has one of these stable codes, carried to
 * GraphQL as `extensions.code`. Anything else that escapes the model is a bug or an engine fault
 * and reaches the client masked.
 */
import type { TransientReason } from '../dynamo/errors';

export const ErrorCode = {
  /** Malformed or out-of-range input; nothing was read or written. */
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  /** A mutation named a customer or order that does not exist. */
  NOT_FOUND: 'NOT_FOUND',
  /** The input is valid but the stored state forbids it (taken email, forbidden move, reused key). */
  CONFLICT: 'CONFLICT',
  /** No token, or a token that does not verify (HTTP 401). */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** A signed-in caller asked for someone else's data, decided from the arguments alone. */
  FORBIDDEN: 'FORBIDDEN',
  /** The caller's quota is spent (HTTP 429 with Retry-After). */
  RATE_LIMITED: 'RATE_LIMITED',
  /**
   * Contention or an outage, not the request's fault: safe to send again after `Retry-After`
   * (HTTP 503; `extensions.retryable: true`, `retryAfterSeconds`, `reason`). Nothing was written.
   */
  UNAVAILABLE: 'UNAVAILABLE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Why a request was UNAVAILABLE: writes of the same items kept colliding (`contention`), DynamoDB
 * refused the rate (`throttled`, after the SDK's own retries), DynamoDB or the engine could not be
 * reached or failed (`unreachable`), or the identity provider's key set could not be had.
 */
export type UnavailableReason = TransientReason | 'identity-provider';

export class DomainError extends Error {
  override readonly name = 'DomainError';
  /** UNAVAILABLE only: whole seconds (≥ 1) after which the same request may be sent again. */
  readonly retryAfterSeconds?: number;
  /** UNAVAILABLE only: why. */
  readonly reason?: UnavailableReason;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The input field at fault, when there is one (e.g. `input.email`). */
    readonly field?: string,
    retry?: { reason: UnavailableReason; retryAfterSeconds: number },
  ) {
    super(message);
    if (retry) {
      this.reason = retry.reason;
      this.retryAfterSeconds = retry.retryAfterSeconds;
    }
  }
}

export const badInput = (message: string, field?: string) => new DomainError(ErrorCode.BAD_USER_INPUT, message, field);
export const notFound = (message: string) => new DomainError(ErrorCode.NOT_FOUND, message);
export const conflict = (message: string, field?: string) => new DomainError(ErrorCode.CONFLICT, message, field);
export const forbidden = (message: string, field?: string) => new DomainError(ErrorCode.FORBIDDEN, message, field);
/** The stable, generic message of each reason when the product has no better one (never DynamoDB's or the network's words). */
export const UNAVAILABLE_MESSAGES: Record<UnavailableReason, string> = {
  contention: 'Too many concurrent writes of the same data; try again',
  throttled: 'The service is busy; try again',
  unreachable: 'The service is temporarily unavailable; try again',
  'identity-provider': 'The identity provider is unavailable, so the token cannot be checked now; try again',
};

/** Contention or an outage: the caller may send the same request again after `retryAfterSeconds` (whole, ≥ 1). */
export const unavailable = (reason: UnavailableReason, message: string, retryAfterSeconds = 1) =>
  new DomainError(ErrorCode.UNAVAILABLE, message, undefined, {
    reason,
    retryAfterSeconds: Math.max(1, Math.ceil(Number.isFinite(retryAfterSeconds) ? retryAfterSeconds : 1)),
  });

/**
 * The HTTP status a response takes when an error of this code is its reason. Errors raised while
 * fields execute keep 200 (GraphQL over HTTP), but UNAVAILABLE: a response holding one is 503
 * with `Retry-After` (src/http/plugins.ts), so clients and proxies that retry on 503 do so.
 */
export const HTTP_STATUS: Partial<Record<ErrorCode, number>> = { UNAUTHENTICATED: 401, RATE_LIMITED: 429, UNAVAILABLE: 503 };

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
