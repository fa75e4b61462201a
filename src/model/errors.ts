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

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
