/**
 * Where dynalite 4.0.0 evaluates conditions or writes items differently from Amazon DynamoDB, put
 * right by replacing the `db` helpers dynalite's actions call through the module (`db.x(...)`),
 * and by wrapping the UpdateItem action. Installed once by dynalite-internals.ts, so it applies to
 * single-item writes and to transactions (which run the same actions) alike.
 *
 * - Conditions (`db.checkConditional`): dynalite compares lists and maps by reference, so equal
 *   lists and maps compared unequal; and it treated two missing operands as equal. DynamoDB
 *   compares L and M by value, and a comparison (`=`, `<`, `<=`, `>`, `>=`, BETWEEN, IN) with a
 *   missing operand is false (`<>` with a missing operand is true). A Query's or Scan's
 *   FilterExpression (`db.matchesExprFilter`, which query-table.ts calls) is evaluated the same way.
 * - The legacy `Expected` conditions (`db.checkConditional`) and `QueryFilter` (`db.matchesFilter`,
 *   which query-table.ts calls): dynalite read `{ Exists: true, Value }` as "exists" and ignored
 *   the value, so the version check DynamoDBMapper sends for optimistic locking never failed; and
 *   with `ConditionalOperator: OR` it answered false as soon as the first condition was false.
 *   DynamoDB compares the value (`Value` alone or with `Exists: true` is EQ), and OR holds when any
 *   condition holds. Comparisons follow the expression rules above (by value, missing is false).
 * - Index keys (`db.updateIndexes`): DynamoDB rejects an item whose secondary index key attribute
 *   is an empty string or binary value; dynalite stored it.
 * - UpdateItem that only removes (REMOVE, DELETE of set elements, AttributeUpdates DELETE with or
 *   without a value) on an item that does not exist: DynamoDB creates nothing ("Nothing happens;
 *   there is no attribute to delete"); dynalite created the bare key.
 */
import type * as DynaliteDb from 'dynalite/db/index.js';
import type { Action, AttributeValue, Item, TableDescription } from 'dynalite/db/index.js';

type Db = typeof DynaliteDb;

interface ExpressionNode {
  type: string;
  name?: string;
  args: unknown[];
}

const ORDERED_COMPARISONS = new Set(['<', '<=', '>', '>=', 'between']);
const installed = new WeakSet<object>();

export function installConditionSemantics(db: Db): void {
  if (installed.has(db)) return;
  installed.add(db);
  const dynaliteCheckConditional = db.checkConditional;
  const mutableDb = db as { -readonly [K in keyof Db]: Db[K] };
  mutableDb.checkConditional = (data, existingItem) => {
    const condition = (data as { _condition?: { expression: ExpressionNode } })._condition;
    const legacy = data as { Expected?: Record<string, ExpectedCondition>; ConditionalOperator?: string };
    if (!condition && legacy.Expected)
      return legacyMatches(db, existingItem ?? {}, legacy.Expected, legacy.ConditionalOperator) ? null : conditionalError();
    if (!condition) return dynaliteCheckConditional(data, existingItem);
    return matches(db, existingItem ?? {}, condition.expression) ? null : conditionalError();
  };
  mutableDb.matchesFilter = (item, filter, conditionalOperator) =>
    legacyMatches(db, item, filter as Record<string, ExpectedCondition>, conditionalOperator);
  // A FilterExpression is a condition on each item read: query-table.ts calls this export for Query and Scan.
  mutableDb.matchesExprFilter = (item, expression) => matches(db, item, expression as ExpressionNode);
  const dynaliteUpdateIndexes = db.updateIndexes;
  mutableDb.updateIndexes = (store, table, existingItem, item, cb) => {
    const invalid = item ? emptyIndexKey(db, table, item) : undefined;
    if (invalid) return cb(invalid);
    return dynaliteUpdateIndexes(store, table, existingItem, item, cb);
  };
}

/** dynalite's ConditionalCheckFailedException (db/index.js `conditionalError`, not exported). */
function conditionalError(): DynaliteDb.DynaliteError {
  const message = 'The conditional request failed';
  const err: DynaliteDb.DynaliteError = new Error(message);
  err.statusCode = 400;
  err.body = { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message };
  return err;
}

function matches(db: Db, item: Item, expr: ExpressionNode): boolean {
  const [first, second] = expr.args as ExpressionNode[];
  if (expr.type === 'and') return matches(db, item, first as ExpressionNode) && matches(db, item, second as ExpressionNode);
  if (expr.type === 'or') return matches(db, item, first as ExpressionNode) || matches(db, item, second as ExpressionNode);
  if (expr.type === 'not') return !matches(db, item, first as ExpressionNode);
  const operator = expr.type === 'function' ? (expr.name ?? '') : expr.type;
  const [value, ...operands] = expr.args.map((arg) => resolve(db, arg, item));
  if (operator === '=') return value != null && operands[0] != null && sameValue(db, value, operands[0]);
  if (operator === '<>') return value == null || operands[0] == null || !sameValue(db, value, operands[0]);
  if (operator === 'in') return value != null && operands.some((operand) => operand != null && sameValue(db, value, operand));
  // contains(list, operand): an element equal to the operand, of any type (a set, a map, a list too).
  if (operator === 'contains' && Array.isArray(value?.L)) {
    const operand = operands[0];
    return operand != null && (value.L as AttributeValue[]).some((element) => sameValue(db, element, operand));
  }
  // attribute_type(path, :t): of that type, `false` and `0` included (dynalite tested the value for truth).
  if (operator === 'attribute_type') return value != null && operands[0]?.S !== undefined && Object.keys(value)[0] === operands[0].S;
  if ((operator === 'begins_with' || operator === 'contains') && typeof operands[0]?.B === 'string') {
    return binaryMatch(operator, value, operands[0].B);
  }
  if (ORDERED_COMPARISONS.has(operator) && (value == null || operands.some((operand) => operand == null))) return false;
  return db.compare(operator, value, operands);
}

/**
 * begins_with and contains with a Binary operand compare bytes. dynalite decoded both sides to
 * UTF-8 text, where every invalid sequence is the same replacement character, so bytes that are
 * not there matched (0x0B 0xFD "in" 0x61 0x0B 0xE6 0x14).
 */
function binaryMatch(operator: 'begins_with' | 'contains', value: AttributeValue | undefined, operand: string): boolean {
  const bytes = Buffer.from(operand, 'base64');
  if (typeof value?.B === 'string') {
    const stored = Buffer.from(value.B, 'base64');
    return operator === 'begins_with'
      ? stored.subarray(0, bytes.length).equals(bytes) && stored.length >= bytes.length
      : stored.includes(bytes);
  }
  if (operator === 'contains' && Array.isArray(value?.BS))
    return (value.BS as string[]).some((element) => Buffer.from(element, 'base64').equals(bytes));
  return false;
}

/** One attribute's legacy condition (`Expected`, `QueryFilter`), as dynalite's validation let it through. */
interface ExpectedCondition {
  Exists?: boolean;
  Value?: AttributeValue;
  ComparisonOperator?: string;
  AttributeValueList?: AttributeValue[];
}

const LEGACY_OPERATORS: Record<string, string> = {
  EQ: '=',
  NE: '<>',
  LE: '<=',
  LT: '<',
  GE: '>=',
  GT: '>',
  BETWEEN: 'between',
  IN: 'in',
  CONTAINS: 'contains',
  BEGINS_WITH: 'begins_with',
};

/** The legacy conditions on `item`: every one (AND, the default) or any one (OR). */
function legacyMatches(
  db: Db,
  item: Item,
  conditions: Record<string, ExpectedCondition>,
  conditionalOperator: string | undefined,
): boolean {
  const results = Object.entries(conditions).map(([name, condition]) => legacyCondition(db, item, name, condition));
  return conditionalOperator === 'OR' ? results.some(Boolean) : results.every(Boolean);
}

function legacyCondition(db: Db, item: Item, name: string, condition: ExpectedCondition): boolean {
  const value = item[name];
  if (condition.Exists === false) return value === undefined;
  if (condition.Value !== undefined) return value !== undefined && sameValue(db, value, condition.Value);
  if (condition.ComparisonOperator === undefined) return value !== undefined; // Exists: true alone
  const operands = condition.AttributeValueList ?? [];
  // NOT_CONTAINS of a missing attribute is false, as CONTAINS is (test_update_expected_1_not_contains).
  if (condition.ComparisonOperator === 'NOT_CONTAINS' && value === undefined) return false;
  if (condition.ComparisonOperator === 'NOT_CONTAINS' && typeof operands[0]?.B === 'string')
    return !binaryMatch('contains', value, operands[0].B);
  if (condition.ComparisonOperator === 'NOT_CONTAINS' && Array.isArray(value?.L))
    return !matches(db, item, { type: 'function', name: 'contains', args: [[name], ...operands] });
  const operator = LEGACY_OPERATORS[condition.ComparisonOperator];
  if (operator === undefined) return db.compare(condition.ComparisonOperator, value, operands);
  // As the expression `name <operator> operands` (a missing attribute: see `matches`).
  return matches(db, item, { type: operator, args: [[name], ...operands] });
}

/** An operand's value: a document path read from the item, `size(path)`, or a literal. */
function resolve(db: Db, arg: unknown, item: Item): AttributeValue | undefined {
  if (Array.isArray(arg)) return db.mapPath(arg, item);
  const node = arg as ExpressionNode;
  if (node.type === 'function' && node.name === 'size') {
    const target = resolve(db, node.args[0], item);
    const length = target ? sizeOf(target) : undefined;
    return length === undefined ? undefined : { N: String(length) };
  }
  return arg as AttributeValue;
}

function sizeOf(value: AttributeValue): number | undefined {
  if (typeof value.S === 'string') return value.S.length;
  if (typeof value.B === 'string') return Buffer.from(value.B, 'base64').length;
  for (const type of ['SS', 'NS', 'BS', 'L']) if (Array.isArray(value[type])) return (value[type] as unknown[]).length;
  if (value.M && typeof value.M === 'object') return Object.keys(value.M).length;
  return undefined;
}

/** DynamoDB equality: same type; lists in order and maps by key, element by element. */
function sameValue(db: Db, a: AttributeValue, b: AttributeValue): boolean {
  const type = Object.keys(a)[0];
  if (type === undefined || type !== Object.keys(b)[0]) return false;
  if (type === 'L') {
    const [left, right] = [a.L as AttributeValue[], b.L as AttributeValue[]];
    return left.length === right.length && left.every((element, i) => sameValue(db, element, right[i] as AttributeValue));
  }
  if (type === 'M') {
    const [left, right] = [a.M as Item, b.M as Item];
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((k) => right[k] !== undefined && sameValue(db, left[k] as AttributeValue, right[k]))
    );
  }
  return db.compare('=', a, [b]);
}

/** Amazon's error for an empty string or binary secondary index key value, or undefined. */
function emptyIndexKey(db: Db, table: TableDescription, item: Item): DynaliteDb.DynaliteError | undefined {
  for (const index of [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])]) {
    for (const { AttributeName } of index.KeySchema) {
      const value = item[AttributeName];
      if (value && (value.S === '' || value.B === '')) {
        return db.validationError(
          'One or more parameter values are not valid. A value specified for a secondary index key is not supported. ' +
            `The AttributeValue for a key attribute cannot contain an empty ${value.S === '' ? 'string' : 'binary'} value. ` +
            `IndexName: ${index.IndexName}, IndexKey: ${AttributeName}`,
        );
      }
    }
  }
  return undefined;
}

/**
 * UpdateItem whose every action removes attributes or set elements: on an item that does not exist it checks the
 * condition and answers, creating nothing (DynamoDB). Otherwise dynalite's UpdateItem runs.
 */
export function withoutRemoveOnlyUpserts(db: Db, updateItem: Action): Action {
  return (store, data, cb) => {
    if (!removesOnly(data)) return updateItem(store, data, cb);
    store.getTable(data.TableName, true, (err, table) => {
      if (err || !table) return updateItem(store, data, cb);
      const invalid = db.validateKey(data.Key, table) ?? db.validateUpdates(data.AttributeUpdates, data._updates, table);
      if (invalid) return cb(invalid);
      store.getItemDb(data.TableName).get(db.createKey(data.Key, table), (getErr, existing) => {
        if (getErr && getErr.name !== 'NotFoundError') return cb(getErr);
        if (existing) return updateItem(store, data, cb);
        const failed = db.checkConditional(data, undefined);
        if (failed) return cb(failed);
        const result: Record<string, unknown> = {};
        if (data.ReturnConsumedCapacity === 'TOTAL' || data.ReturnConsumedCapacity === 'INDEXES') {
          result.ConsumedCapacity = { CapacityUnits: 1, TableName: data.TableName };
        }
        return cb(null, result);
      });
    });
  };
}

function removesOnly(data: {
  _updates?: { sections: { type: string }[] };
  AttributeUpdates?: Record<string, { Action?: string; Value?: unknown }>;
}): boolean {
  // REMOVE a path, DELETE elements from a set: nothing to remove from an item that is not there.
  if (data._updates)
    return (
      data._updates.sections.length > 0 && data._updates.sections.every((section) => section.type === 'remove' || section.type === 'delete')
    );
  const updates = Object.values(data.AttributeUpdates ?? {});
  return updates.length > 0 && updates.every((update) => update.Action === 'DELETE');
}
