/**
 * The one place that loads dynalite's internals. dynalite is CommonJS and its package has no
 * `exports` map, so its modules are required by path; every module gets the same instance through
 * Node's require cache.
 */
import { createRequire } from 'node:module';
import type * as DynaliteDb from 'dynalite/db/index.js';
import type * as DynaliteValidations from 'dynalite/validations/index.js';
import { installConditionSemantics, withoutRemoveOnlyUpserts } from './condition-semantics';
import { withoutEmptyAttributes } from './return-values';
import { withOriginalListPositions } from './update-positions';
import { installUtf8ItemSizes } from './item-size';
import { installUtf8QueryTable } from './query-table';
import { installKeyLimits } from './key-limits';
import { installNumberLimits } from './number-limits';
import { installLegacyEqualityTypes } from './request-checks';
import { withRequestValidation } from './request-validation';
import { installPackratParsers } from './packrat-parsers';

export type {
  Action,
  AttributeValue,
  BatchOperation,
  Callback,
  DynaliteError,
  Item,
  OperationValidation,
  Store,
  StoreOptions,
  SubDb,
  TableDescription,
} from 'dynalite/db/index.js';

const requireDynalite = createRequire(import.meta.url);

/** `dynalite/db`: the LevelDB store factory plus key, condition, size and index helpers. */
export const db = requireDynalite('dynalite/db/index.js') as typeof DynaliteDb;
// Sizes and capacity in UTF-8 bytes, as DynamoDB counts them (dynalite counts UTF-16 code units).
installUtf8ItemSizes(db);
// Query and Scan's page limit and capacity in UTF-8 bytes too (query-table.ts).
installUtf8QueryTable(db);
// Conditions, empty index keys and remove-only updates as DynamoDB has them (condition-semantics.ts).
installConditionSemantics(db);
// Key values within DynamoDB's 2,048/1,024-byte limits, in UTF-8, for table and index keys (key-limits.ts).
installKeyLimits(db);
// Numbers an update computes held to DynamoDB's bounds (number-limits.ts).
installNumberLimits(db);

// Expression parsing in linear time (packrat-parsers.ts); must precede loading the validations.
installPackratParsers();

/** `dynalite/validations`: request type coercion and constraint checking. */
export const validations = requireDynalite('dynalite/validations/index.js') as typeof DynaliteValidations;
// Legacy EQ and NE take lists, maps and Booleans, as on Amazon (request-checks.ts).
installLegacyEqualityTypes(validations as unknown as Parameters<typeof installLegacyEqualityTypes>[0]);

/** The operations dynalite implements itself (its `validOperations`), each with action + validation. */
export const DYNALITE_OPERATIONS = [
  'BatchGetItem',
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DeleteTable',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'ListTagsOfResource',
  'PutItem',
  'Query',
  'Scan',
  'TagResource',
  'UntagResource',
  'UpdateItem',
  'UpdateTable',
] as const;

export type DynaliteOperation = (typeof DYNALITE_OPERATIONS)[number];

export function loadAction(operation: DynaliteOperation): DynaliteDb.Action {
  const action = requireDynalite(`dynalite/actions/${validations.toLowerFirst(operation)}.js`) as DynaliteDb.Action;
  if (operation === 'UpdateItem') return withoutEmptyAttributes(withoutRemoveOnlyUpserts(db, withOriginalListPositions(action)));
  return operation === 'PutItem' || operation === 'DeleteItem' ? withoutEmptyAttributes(action) : action;
}

/** dynalite's validation of `operation`, with the checks DynamoDB makes and dynalite lacks (request-validation.ts). */
export function loadValidation(operation: DynaliteOperation): DynaliteDb.OperationValidation {
  const validation = requireDynalite(`dynalite/validations/${validations.toLowerFirst(operation)}.js`) as DynaliteDb.OperationValidation;
  return withRequestValidation(operation, validation);
}

/* Promise forms of dynalite's callback APIs. */

/** Runs a dynalite action (`actions/<op>.js`) against `store`; `Result` is what the caller knows the action answers. */
export function runAction<Result = unknown>(action: DynaliteDb.Action, store: DynaliteDb.Store, data: unknown): Promise<Result> {
  return new Promise((resolve, reject) => {
    action(store, data, (err, result) => (err ? reject(err) : resolve(result as Result)));
  });
}

/**
 * The table's description. Rejects with dynalite's ResourceNotFoundException when the table does
 * not exist or, with `requireUsable`, while it is CREATING or DELETING (as item operations do).
 */
export function getTable(store: DynaliteDb.Store, name: string, requireUsable = true): Promise<DynaliteDb.TableDescription> {
  return new Promise((resolve, reject) => {
    store.getTable(name, requireUsable, (err, table) => (err ? reject(err) : resolve(table as DynaliteDb.TableDescription)));
  });
}

/** The stored item under dynalite's key string (`db.createKey`), or undefined. */
export function readItem(store: DynaliteDb.Store, tableName: string, key: string): Promise<DynaliteDb.Item | undefined> {
  return new Promise((resolve, reject) => {
    store.getItemDb(tableName).get(key, (err, item) => {
      if (err && err.name !== 'NotFoundError') reject(err);
      else resolve(item ?? undefined);
    });
  });
}
