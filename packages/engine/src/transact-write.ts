/**
 * TransactWriteItems, once validated (transaction-requests.ts) and with the engine's lock held
 * exclusively: a repeat of a remembered ClientRequestToken gets its first answer; otherwise every
 * key is checked against its table, every target item is read (the snapshot), and each action is
 * staged against the snapshot by dynalite's own PutItem/UpdateItem/DeleteItem (staging-store.ts)
 * or `checkConditional` for a ConditionCheck. Any failed action cancels the whole transaction
 * (TransactionCanceledException, one reason per action in action order) and nothing is written;
 * otherwise every recorded item and index write goes to LevelDB in one atomic `batch`.
 */
import {
  db,
  loadAction,
  readItem,
  runAction,
  type BatchOperation,
  type DynaliteError,
  type Item,
  type Store,
  type TableDescription,
} from './dynalite-internals';
import { DYNAMODB_ERROR, apiError, isApiError } from './errors';
import type { IdempotencyWindow } from './idempotency-window';
import { commitBatch } from './index-lag';
import { stagingStore, type RecordedWrites } from './staging-store';
import { consumedCapacity, emptyTableCapacity, sizeOf, writeUnits, type TableCapacity } from './transaction-capacity';
import {
  loadTables,
  rejectMultipleOperationsOnOneItem,
  tableOf,
  type PlannedWrite,
  type TransactWriteRequest,
} from './transaction-requests';

const WRITE_ACTIONS = { Put: loadAction('PutItem'), Delete: loadAction('DeleteItem'), Update: loadAction('UpdateItem') };

interface CancellationReason {
  Code: 'None' | 'ConditionalCheckFailed' | 'ValidationError' | 'TransactionConflict';
  Message?: string;
  Item?: Item;
}

/** What one action will do, decided against the snapshot. */
interface StagedWrite {
  reason: CancellationReason;
  /** LevelDB operations (full keys), written only if every action succeeds. */
  operations: BatchOperation[];
  capacity: TableCapacity;
}

export async function executeTransactWrite(store: Store, idempotency: IdempotencyWindow, request: TransactWriteRequest): Promise<unknown> {
  const replayed = await idempotency.replay(request);
  if (replayed !== undefined) return replayed;

  const { writes } = request;
  const tables = await loadTables(
    store,
    writes.map((write) => write.request.TableName),
  );
  const keys = targetKeys(writes, tables);
  rejectMultipleOperationsOnOneItem(writes.map((write, i) => `${write.request.TableName}\u0000${keys[i]}`));

  const snapshot = await Promise.all(writes.map((write, i) => readItem(store, write.request.TableName, keys[i] as string)));

  const staged: StagedWrite[] = [];
  for (const [i, write] of writes.entries()) {
    staged.push(await stageWrite(store, write, tableOf(tables, write.request), snapshot[i]));
  }
  if (staged.some((action) => action.reason.Code !== 'None')) {
    throw transactionCanceled(staged.map((action) => action.reason));
  }

  const result: Record<string, unknown> = {};
  const consumed = consumedCapacity(
    request.returnConsumedCapacity,
    'WriteCapacityUnits',
    writes.map((write, i) => ({
      tableName: write.request.TableName,
      capacity: (staged[i] as StagedWrite).capacity,
    })),
  );
  if (consumed) result.ConsumedCapacity = consumed;
  // The token is remembered in the transaction's own batch: both survive a crash, or neither.
  // (GSI writes may lag behind it, with `gsiLagMs`: index-lag.ts.)
  await commitBatch(store, [...staged.flatMap((action) => action.operations), ...idempotency.operations(request, result)], {
    transaction: true,
  });
  return result;
}

/**
 * Each action's dynalite key, after checking its key (or Put item) and update against the schema,
 * as Amazon does: an empty string or binary key value, and an update of a key attribute, are
 * refused up front (a whole-request ValidationException); a key or item that does not match the
 * schema (a key of the wrong type or missing, an index key of the wrong type) cancels the
 * transaction with a ValidationError reason at that action and None at the others, before any
 * condition is evaluated or duplicate refused. Amazon stops at the first such action: a second
 * invalid one is not reached and reports None (ScyllaDB's
 * test_transact_write_cancellation_reasons_validationerror, checked against Amazon).
 */
function targetKeys(writes: PlannedWrite[], tables: Map<string, TableDescription>): string[] {
  const invalid = writes.map((write) => invalidTarget(write, tableOf(tables, write.request)));
  const upFront = invalid.find((err) => err && !PER_ACTION_VALIDATION.test(errorMessage(err)));
  if (upFront) throw upFront;
  const first = invalid.findIndex(Boolean);
  if (first >= 0) {
    const reasons = invalid.map((err, i): CancellationReason =>
      i === first && err ? { Code: 'ValidationError', Message: errorMessage(err) } : { Code: 'None' },
    );
    throw transactionCanceled(reasons);
  }
  return writes.map((write) => db.createKey(targetOf(write), tableOf(tables, write.request)));
}

/** Schema mismatches Amazon reports as the action's cancellation reason rather than the request's error. */
const PER_ACTION_VALIDATION = /does not match the schema|Type mismatch for (Index )?Key|Missing the key/i;

function targetOf(write: PlannedWrite): Item {
  return (write.kind === 'Put' ? write.request.Item : write.request.Key) as Item;
}

function invalidTarget(write: PlannedWrite, table: TableDescription): DynaliteError | undefined {
  const { request } = write;
  const target = targetOf(write);
  const invalid =
    write.kind === 'Put'
      ? db.validateItem(target, table)
      : (db.validateKey(target, table) ??
        (write.kind === 'Update' ? db.validateUpdates(request.AttributeUpdates, request._updates, table) : undefined));
  return invalid ?? undefined;
}

function errorMessage(err: DynaliteError): string {
  return String(err.body?.message ?? err.message);
}

async function stageWrite(store: Store, write: PlannedWrite, table: TableDescription, existing: Item | undefined): Promise<StagedWrite> {
  const capacity = emptyTableCapacity();
  if (write.kind === 'ConditionCheck') {
    const failed = db.checkConditional(write.request, existing);
    capacity.table += writeUnits(sizeOf(existing));
    return { reason: failed ? conditionFailed(write, existing) : { Code: 'None' }, operations: [], capacity };
  }

  const recorded: RecordedWrites = { operations: [], item: existing, indexWrites: [] };
  try {
    await runAction(WRITE_ACTIONS[write.kind], stagingStore(store, table, existing, recorded), write.request);
  } catch (err) {
    return { reason: failureReason(err, write, existing), operations: [], capacity };
  }
  capacity.table += writeUnits(Math.max(sizeOf(existing), sizeOf(recorded.item)));
  for (const index of recorded.indexWrites) {
    const indexes = index.indexType === 'Global' ? capacity.globalIndexes : capacity.localIndexes;
    indexes.set(index.indexName, (indexes.get(index.indexName) ?? 0) + writeUnits(sizeOf(index.item ?? existing)));
  }
  return { reason: { Code: 'None' }, operations: recorded.operations, capacity };
}

/** A failed staged action's cancellation reason; errors that are not the action's own are rethrown. */
function failureReason(err: unknown, write: PlannedWrite, existing: Item | undefined): CancellationReason {
  if (!isApiError(err)) throw err;
  const type = err.body.__type;
  if (type.endsWith('#ConditionalCheckFailedException')) return conditionFailed(write, existing);
  // Runtime update errors (wrong operand type, invalid document path, item too large, ...):
  // Amazon reports these as the action's ValidationError and cancels the transaction.
  if (type.endsWith('#ValidationException')) return { Code: 'ValidationError', Message: err.body.message ?? err.message };
  throw err;
}

function conditionFailed(write: PlannedWrite, existing: Item | undefined): CancellationReason {
  const reason: CancellationReason = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
  if (write.returnOldOnFailure && existing) reason.Item = existing;
  return reason;
}

/** Amazon's TransactionCanceledException with one reason per action, in action order (also conflicts.ts's). */
export function transactionCanceled(reasons: CancellationReason[]): DynaliteError {
  const message = `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`;
  const err = apiError(`${DYNAMODB_ERROR}TransactionCanceledException`, message, { CancellationReasons: reasons });
  // Amazon spells this exception's message member `Message`.
  if (err.body) {
    delete err.body.message;
    err.body.Message = message;
  }
  return err;
}
