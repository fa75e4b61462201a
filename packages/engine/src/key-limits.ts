/**
 * Key value sizes as DynamoDB limits them: a partition key value at most 2,048 bytes and a sort key
 * value at most 1,024 bytes, strings counted in UTF-8 and binaries in their decoded bytes (Numbers
 * are not limited). dynalite 4.0.0 checked only the table's keys, and in UTF-16 code units (an 'é'
 * partition key of 1,100 characters, 2,200 bytes, was stored); it never checked a secondary
 * index's key attributes.
 *
 * `installKeyLimits(db)` wraps dynalite's exported `validateKey`, `validateItem` and
 * `updateIndexes` (dynalite-internals.ts does it once); dynalite's actions call them through the
 * module's exports, and transactions run those actions, so:
 * - every request naming a key (GetItem, DeleteItem, UpdateItem, BatchGetItem, a BatchWriteItem
 *   DeleteRequest, an ExclusiveStartKey on the table) and every item written (PutItem, a
 *   BatchWriteItem PutRequest, validated before any of the batch is written; a transaction's Put)
 *   is refused with Amazon's table-key messages: "One or more parameter values were invalid: Size
 *   of hashkey has exceeded the maximum size limit of2048 bytes" (sic, Amazon's spacing) and "…
 *   Aggregated size of all range keys has exceeded the size limit of 1024 bytes";
 * - an item whose secondary index key attribute (of the index's type) is too large, including the
 *   item an UpdateItem produces (checked in `updateIndexes`, before anything is written), is
 *   refused with Amazon's index message: "One or more parameter values were invalid: Size limit
 *   exceeded for Index Key <attr> Actual Size: <n> bytes Max Size: 2048 bytes IndexName: <index>"
 *   (1024 bytes for an index sort key).
 */
import type * as DynaliteDb from 'dynalite/db/index.js';
import type { AttributeValue, DynaliteError, Item, TableDescription } from 'dynalite/db/index.js';

type Db = typeof DynaliteDb;
type KeySchema = TableDescription['KeySchema'];

export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;

const installed = new WeakSet<object>();

export function installKeyLimits(db: Db): void {
  if (installed.has(db)) return;
  installed.add(db);
  const mutableDb = db as { -readonly [K in keyof Db]: Db[K] };
  const { validateKey, validateItem, updateIndexes } = db;
  mutableDb.validateKey = (key, table) => validateKey(key, table) ?? tableKeyTooLarge(db, key, table);
  mutableDb.validateItem = (item, table) =>
    validateItem(item, table) ?? tableKeyTooLarge(db, item, table) ?? indexKeyTooLarge(db, item, table);
  mutableDb.updateIndexes = (store, table, existingItem, item, cb) => {
    const invalid = item ? indexKeyTooLarge(db, item, table) : undefined;
    if (invalid) return cb(invalid);
    return updateIndexes(store, table, existingItem, item, cb);
  };
}

/** Amazon's error for a table key value over its limit, or undefined. */
function tableKeyTooLarge(db: Db, item: Item, table: TableDescription): DynaliteError | undefined {
  const [hash, range] = keySizes(item, table.KeySchema, table);
  if (hash !== undefined && hash > MAX_PARTITION_KEY_BYTES) {
    return db.validationError(
      `One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of${MAX_PARTITION_KEY_BYTES} bytes`,
    );
  }
  if (range !== undefined && range > MAX_SORT_KEY_BYTES) {
    return db.validationError(
      `One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of ${MAX_SORT_KEY_BYTES} bytes`,
    );
  }
  return undefined;
}

/** Amazon's error for a secondary index key value of the item over its limit, or undefined. */
function indexKeyTooLarge(db: Db, item: Item, table: TableDescription): DynaliteError | undefined {
  for (const index of [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])]) {
    const sizes = keySizes(item, index.KeySchema, table);
    for (const [position, size] of sizes.entries()) {
      const max = position === 0 ? MAX_PARTITION_KEY_BYTES : MAX_SORT_KEY_BYTES;
      if (size === undefined || size <= max) continue;
      const attribute = index.KeySchema[position]?.AttributeName;
      return db.validationError(
        `One or more parameter values were invalid: Size limit exceeded for Index Key ${attribute} ` +
          `Actual Size: ${size} bytes Max Size: ${max} bytes IndexName: ${index.IndexName}`,
      );
    }
  }
  return undefined;
}

/** Whether every key attribute of `schema` in `item` is within the key limits (2,048 bytes partition, 1,024 sort). */
export function keyWithinLimits(item: Item, schema: KeySchema, table: TableDescription): boolean {
  return keySizes(item, schema, table).every(
    (size, position) => size === undefined || size <= (position === 0 ? MAX_PARTITION_KEY_BYTES : MAX_SORT_KEY_BYTES),
  );
}

/**
 * The byte size of each key attribute of `schema` in `item` (undefined where the item lacks it,
 * holds it with another type than its AttributeDefinitions type, or it is a Number).
 */
function keySizes(item: Item, schema: KeySchema, table: TableDescription): (number | undefined)[] {
  return schema.map(({ AttributeName }) => {
    const type = table.AttributeDefinitions.find((definition) => definition.AttributeName === AttributeName)?.AttributeType;
    const value = item[AttributeName] as AttributeValue | undefined;
    const piece = type === undefined ? undefined : (value as Record<string, unknown> | undefined)?.[type];
    if (typeof piece !== 'string') return undefined;
    if (type === 'S') return Buffer.byteLength(piece, 'utf8');
    if (type === 'B') return Buffer.from(piece, 'base64').length;
    return undefined;
  });
}
