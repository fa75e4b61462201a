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

/** Throttled by the table's capacity or the account's request rate (the SDK retries these itself). */
export function isThrottling(error: unknown): boolean {
  const name = nameOf(error);
  return name !== undefined && THROTTLING.has(name);
}
