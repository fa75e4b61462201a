/**
 * The error registry: every error a client may act on has one of these stable codes, carried to
 * GraphQL as `extensions.code`. Anything else that escapes the model is a bug or an engine fault
 * and reaches the client masked.
 */
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
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The input field at fault, when there is one (e.g. `input.email`). */
    readonly field?: string,
  ) {
    super(message);
  }
}

export const badInput = (message: string, field?: string) => new DomainError(ErrorCode.BAD_USER_INPUT, message, field);
export const notFound = (message: string) => new DomainError(ErrorCode.NOT_FOUND, message);
export const conflict = (message: string, field?: string) => new DomainError(ErrorCode.CONFLICT, message, field);
export const forbidden = (message: string, field?: string) => new DomainError(ErrorCode.FORBIDDEN, message, field);

/**
 * The HTTP status a response takes when an error of this code is its reason. Errors raised while
 * fields execute keep 200 (GraphQL over HTTP); the two request-level refusals change it.
 */
export const HTTP_STATUS: Partial<Record<ErrorCode, number>> = { UNAUTHENTICATED: 401, RATE_LIMITED: 429 };

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
