/**
 * Item sizes as DynamoDB counts them: attribute names and string values in UTF-8 bytes. dynalite
 * (4.0.0) counts them in UTF-16 code units (`valSize` returns `string.length`), so a non-ASCII
 * item up to ~2x over 400 KB was accepted and capacity was under-reported.
 *
 * `installUtf8ItemSizes(db)` replaces dynalite's exported `itemSize`, `capacityUnits` and
 * `addConsumedCapacity` (dynalite-internals.ts does it once, when it loads dynalite). dynalite's
 * PutItem and BatchWriteItem validations, UpdateItem's size check, single-item ConsumedCapacity and
 * BatchGetItem's 16 MB cut all call them through the module's exports, so they count UTF-8 from
 * then on; so do the engine's transactions (transaction-capacity.ts). Query/Scan capacity and their
 * 1 MB page size, computed inside dynalite's `queryTable`, are counted by query-table.ts's port.
 *
 * The formula is DynamoDB's (the product's src/model/guards.ts `itemSize` is the same one over
 * native values): names + values; Number: 1 byte per 2 significant digits + 1 (+1 when the digits
 * pair unevenly against the exponent, +1 when negative); Binary: its bytes; NULL/BOOL: 1; List:
 * 3 + 1 per element; Map: 3 + 1 per entry + its entries as an item.
 */

/** A DynamoDB JSON attribute value (`{ S: 'x' }`, `{ N: '1' }`, ...). */
type AttributeValue = Record<string, unknown>;
type Item = Record<string, AttributeValue | undefined>;

/** DynamoDB's 400 KB item limit, in bytes. */
export const MAX_ITEM_BYTES = 400 * 1024;

/** The size of an item as DynamoDB counts it: UTF-8 names plus values, in bytes. */
export function utf8ItemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value == null) continue;
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
}

function valueSize(value: AttributeValue): number {
  const [type] = Object.keys(value);
  const val = value[type as string];
  switch (type) {
    case 'S':
      return Buffer.byteLength(val as string, 'utf8');
    case 'B':
      return binarySize(val);
    case 'N':
      return numberSize(val as string);
    case 'SS':
      return (val as string[]).reduce((sum, s) => sum + Buffer.byteLength(s, 'utf8'), 0);
    case 'BS':
      return (val as unknown[]).reduce((sum: number, b) => sum + binarySize(b), 0);
    case 'NS':
      return (val as string[]).reduce((sum, n) => sum + numberSize(n), 0);
    case 'NULL':
    case 'BOOL':
      return 1;
    case 'L':
      return 3 + (val as AttributeValue[]).reduce((sum, element) => sum + 1 + valueSize(element), 0);
    case 'M':
      return 3 + Object.keys(val as object).length + utf8ItemSize(val as Item);
    default:
      return 0;
  }
}

function binarySize(value: unknown): number {
  if (typeof value === 'string') return Buffer.from(value, 'base64').length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 0;
}

/** dynalite's (and DynamoDB's) Number size, from the number's text. */
export function numberSize(text: string): number {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return 0;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const all = `${whole}${fraction}`;
  const leading = all.length - all.replace(/^0+/, '').length;
  const digits = all.replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length === 0) return 1;
  // The decimal exponent of the most significant digit.
  const e = whole.length - 1 - leading + Number(exponent);
  return 1 + Math.ceil(digits.length / 2) + (digits.length % 2 || e % 2 ? 0 : 1) + (sign === '-' ? 1 : 0);
}

/** dynalite's `db` module exports (its `itemSize`, `capacityUnits` and `addConsumedCapacity` are replaced). */
interface SizingExports {
  itemSize: (item: never) => number;
}

const installed = new WeakSet<object>();

/** Replaces dynalite's exported size and capacity functions by UTF-8 ones (once per module instance). */
export function installUtf8ItemSizes(db: SizingExports): void {
  if (installed.has(db)) return;
  installed.add(db);
  const dynaliteItemSize = db.itemSize as (...args: unknown[]) => number;
  const capacityUnits = (item: Item | undefined, isRead: boolean, isConsistent?: boolean): number => {
    const size = item ? Math.ceil(utf8ItemSize(item) / 1024 / (isRead ? 4 : 1)) : 1;
    return size / (!isRead || isConsistent ? 1 : 2);
  };
  Object.assign(db, {
    // The compressed form (extra arguments) is dynalite's internal page-size estimate: left as is.
    itemSize: (item: Item, ...rest: unknown[]) => (rest.length ? dynaliteItemSize(item, ...rest) : utf8ItemSize(item)),
    capacityUnits,
    addConsumedCapacity(
      data: { ReturnConsumedCapacity?: string; ConsistentRead?: boolean; TableName: string },
      isRead: boolean,
      newItem?: Item,
      oldItem?: Item,
    ) {
      if (data.ReturnConsumedCapacity !== 'TOTAL' && data.ReturnConsumedCapacity !== 'INDEXES') return undefined;
      let capacity = capacityUnits(newItem, isRead, data.ConsistentRead);
      if (oldItem != null) capacity = Math.max(capacity, capacityUnits(oldItem, isRead, data.ConsistentRead));
      return {
        CapacityUnits: capacity,
        TableName: data.TableName,
        Table: data.ReturnConsumedCapacity === 'INDEXES' ? { CapacityUnits: capacity } : undefined,
      };
    },
  });
}
