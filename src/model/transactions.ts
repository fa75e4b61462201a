/**
 * Reading a `TransactionCanceledException` at the model boundary. The SDK reports one reason per
 * action, in action order; the model turns the reason of the action it cares about into a
 * domain error. Any other failure is not ours to translate and is rethrown unchanged.
 *
 * The recognition itself lives in the I/O seam (src/dynamo/errors.ts); the model imports it from
 * here, so the import direction stays model → dynamo.
 */
export {
  cancellationReasons,
  failedCondition,
  isConditionalCheckFailed,
  isTransactionConflict,
  type CancellationReason,
} from '../dynamo/errors';
