/**
 * AWS errors, recognised in one place. The SDK names its exceptions (`error.name`); the document
 * client does not unmarshall what they carry, so a cancelled transaction's ALL_OLD items are
 * unmarshalled here. Everything else in the product asks these functions, never `error.name`.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** One reason per action of a cancelled transaction, in action order. */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, unknown>;
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

function nameOf(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** A conditional PutItem, UpdateItem or DeleteItem whose condition failed (nothing was written). */
export function isConditionalCheckFailed(error: unknown): boolean {
  return nameOf(error) === 'ConditionalCheckFailedException';
}

/** The reasons of a cancelled transaction, or undefined when `error` is not a cancellation. */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (nameOf(error) !== 'TransactionCanceledException') return undefined;
  const raw = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  // The document client does not unmarshall errors: an ALL_OLD item arrives as attribute values.
  return raw.map((reason) => (reason.Item ? { ...reason, Item: unmarshall(reason.Item as never) } : reason));
}

/** Whether one action's reason is a failed condition. */
export function failedCondition(reason: CancellationReason | undefined): boolean {
  return reason?.Code === 'ConditionalCheckFailed';
}

/** A write conflict between two transactions on one item: safe to retry from a fresh read. */
export function isTransactionConflict(reasons: CancellationReason[]): boolean {
  return reasons.some((reason) => reason.Code === 'TransactionConflict');
}

/** The table (or index) does not exist, or is not ACTIVE yet. */
export function isResourceNotFound(error: unknown): boolean {
  return nameOf(error) === 'ResourceNotFoundException';
}

/** The table is being created, updated or deleted, or already exists (a lost creation race). */
export function isResourceInUse(error: unknown): boolean {
  return nameOf(error) === 'ResourceInUseException';
}

/** DynamoDB Streams: the shard iterator is older than 15 minutes (ask for a new one and read on). */
export function isExpiredIterator(error: unknown): boolean {
  return nameOf(error) === 'ExpiredIteratorException';
}

/** DynamoDB Streams: the records asked for are past the stream's 24-hour retention (trimmed away). */
export function isTrimmedData(error: unknown): boolean {
  return nameOf(error) === 'TrimmedDataAccessException';
}

/** Throttled by the table's capacity or the account's request rate (the SDK retries these itself). */
export function isThrottling(error: unknown): boolean {
  const name = nameOf(error);
  return name !== undefined && THROTTLING.has(name);
}

/** Why a DynamoDB call failed for a reason of the moment, not of the request (src/model/errors.ts's UNAVAILABLE). */
export type TransientReason = 'contention' | 'throttled' | 'unreachable';

/** A transient fault and the whole seconds after which the same request may be sent again. */
export interface TransientFault {
  reason: TransientReason;
  retryAfterSeconds: number;
}

/** Retry-After of each reason: contention clears as soon as the other writer commits; an outage takes longer. */
export const RETRY_AFTER_SECONDS: Record<TransientReason, number> = { contention: 1, throttled: 1, unreachable: 2 };

/** Socket-level failures: the endpoint refused, dropped or never answered the connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** The service's own 5xx answers, and the SDK's request timeout. */
const UNREACHABLE_NAMES = new Set(['InternalServerError', 'ServiceUnavailable', 'ServiceUnavailableException', 'TimeoutError']);

/**
 * A fault of the moment that reached the product after the SDK's own retries, or undefined for
 * anything else (a bug, a refused request, a failed condition): throttling, a transaction that kept
 * conflicting with others (`TransactionConflict`), or DynamoDB (the engine) unreachable or failing
 * with a 5xx. The one place these are recognised: the GraphQL side maps them to UNAVAILABLE.
 * Follows `cause` and an AggregateError's `errors` (Node's connection attempts to every address).
 */
export function transientFault(error: unknown, depth = 0): TransientFault | undefined {
  if (!(error instanceof Error) || depth > 4) return undefined;
  const reason = reasonOf(error);
  if (reason) return { reason, retryAfterSeconds: RETRY_AFTER_SECONDS[reason] };
  const nested = [(error as { cause?: unknown }).cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const inner of nested) {
    const fault = transientFault(inner, depth + 1);
    if (fault) return fault;
  }
  return undefined;
}

function reasonOf(error: Error): TransientReason | undefined {
  if (isThrottling(error)) return 'throttled';
  const reasons = cancellationReasons(error);
  if ((reasons && isTransactionConflict(reasons)) || nameOf(error) === 'TransactionConflictException') return 'contention';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'unreachable';
  if (UNREACHABLE_NAMES.has(error.name) || /socket hang up/i.test(error.message)) return 'unreachable';
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === 502 || status === 503 || status === 504) return 'unreachable';
  return undefined;
}
