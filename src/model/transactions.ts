import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * Reading a `TransactionCanceledException` at the model boundary. The SDK reports one reason per
 * action, in action order; the model turns the reason of the action it cares about into a
 * domain error. Any other failure is not ours to translate and is rethrown unchanged.
 */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, unknown>;
}

/** The reasons of a cancelled transaction, or undefined when `error` is not a cancellation. */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const raw = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  // The document client does not unmarshall errors: an ALL_OLD item arrives as attribute values.
  return raw.map((reason) => (reason.Item ? { ...reason, Item: unmarshall(reason.Item as never) } : reason));
}

export function failedCondition(reason: CancellationReason | undefined): boolean {
  return reason?.Code === 'ConditionalCheckFailed';
}

/** A write conflict between two transactions on one item: safe to retry from a fresh read. */
export function isTransactionConflict(reasons: CancellationReason[]): boolean {
  return reasons.some((reason) => reason.Code === 'TransactionConflict');
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
