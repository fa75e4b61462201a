/**
 * TransactWriteItems and TransactGetItems with Amazon DynamoDB's semantics, built from dynalite's
 * own parts. The engine runs TransactWriteItems holding its lock exclusively and TransactGetItems
 * holding it shared (see engine.ts), so each sees and leaves a consistent state.
 *
 * TransactWriteItems:
 *  1. Validation (no lock): the request shape through dynalite's `checkTypes`/`checkValidations`
 *     (so errors read like Amazon's, e.g. "Value ... at 'transactItems' failed to satisfy
 *     constraint: Member must have length less than or equal to 100"), then each action through
 *     dynalite's PutItem/UpdateItem/DeleteItem validator, which also parses its expressions.
 *  2. Keys and tables: every key is checked against its table's schema, and two actions on one
 *     item are refused, as Amazon does, before anything is read.
 *  3. Snapshot: every target item is read. Nothing else can write meanwhile (exclusive lock).
 *  4. Staging: each Put/Update/Delete runs dynalite's own action against a *staging store*, whose
 *     item db answers reads from the snapshot and records writes instead of making them, and whose
 *     index dbs record the GSI/LSI entries dynalite's `updateIndexes` produces. So conditions,
 *     update expressions (SET/REMOVE/ADD/DELETE, if_not_exists, list_append, ...), the item size
 *     limit and index maintenance are exactly dynalite's UpdateItem/PutItem code. ConditionCheck
 *     uses dynalite's `checkConditional`. Every action is evaluated against the snapshot, so all
 *     conditions are decided before anything is written.
 *  5. Outcome: any failed action cancels the whole transaction (TransactionCanceledException with
 *     one reason per action, in action order) and nothing recorded is written. Otherwise all
 *     recorded item and index writes go to LevelDB in ONE `batch`, which LevelDB applies
 *     atomically (its write-ahead log holds the batch as one record), so an on-disk engine killed
 *     mid-transaction holds all of it or none of it.
 *
 * A body whose shape validation cannot read (an action that is `null`) is a SerializationException
 * (errors.ts, `readableShape`), as for every other operation.
 *
 * The parts: transaction-requests.ts (shapes, validation), transact-write.ts with staging-store.ts,
 * transact-get.ts, transaction-capacity.ts and idempotency-window.ts. This file only pairs each
 * operation with its lock mode for the engine's router (operation.ts).
 */
import type { Store } from './dynalite-internals';
import { readableShape } from './errors';
import { IdempotencyWindow } from './idempotency-window';
import type { OperationHandler } from './operation';
import { executeTransactGet } from './transact-get';
import { executeTransactWrite } from './transact-write';
import { validateTransactGet, validateTransactWrite, type TransactGetRequest, type TransactWriteRequest } from './transaction-requests';

export function createTransactionHandlers(store: Store): Record<'TransactWriteItems' | 'TransactGetItems', OperationHandler> {
  const idempotency = new IdempotencyWindow(store);
  return {
    TransactWriteItems: {
      exclusive: true,
      validate: (body) => readableShape(() => validateTransactWrite(body, store)),
      execute: (request: TransactWriteRequest) => executeTransactWrite(store, idempotency, request),
    },
    TransactGetItems: {
      exclusive: false,
      validate: (body) => readableShape(() => validateTransactGet(body, store)),
      execute: (request: TransactGetRequest) => executeTransactGet(store, request),
    },
  };
}
