/**
 * Numbers as DynamoDB bounds them, where dynalite 4.0.0 did not (cases of ScyllaDB's Alternator
 * suite, run against Amazon: test_update_expression_plus_overflow, _plus_imprecise,
 * test_invalid_numbers, test_number_output_normalization):
 *
 * - The result of arithmetic (`SET a = :x + :y`, `ADD`, AttributeUpdates `ADD`) is held to the
 *   bounds every number sent is held to: magnitude 1E-130 to 9.99…E+125, at most 38 significant
 *   digits, with Amazon's messages ("Number overflow. Attempting to store a number with magnitude
 *   larger than supported range", "Number underflow…", "Attempting to store more than 38
 *   significant digits in a Number"). dynalite stored any result. Checked on the item an update
 *   leaves, in `db.updateIndexes` (which dynalite's UpdateItem calls before writing anything).
 * - A number may carry one leading `+` (`+3`, `+1.5`, a key `+1000`): Amazon reads it, and answers
 *   it normalised; dynalite's parser (big.js) refused it. `withoutLeadingPlus` drops the sign from
 *   every number of a request before validation.
 */
import type * as DynaliteDb from 'dynalite/db/index.js';
import type { Item } from 'dynalite/db/index.js';

type Db = typeof DynaliteDb;

const installed = new WeakSet<object>();

/** Amazon's message for a normalised number (dynalite's `toFixed` form) out of bounds, or undefined. */
export function numberOutOfBounds(number: string): string | undefined {
  const digits = number.replace(/^-/, '');
  const [whole = '', fraction = ''] = digits.split('.');
  const significant = `${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return undefined; // zero
  const wholeDigits = whole.replace(/^0+/, '');
  // The exponent of the first significant digit (big.js's `e`): 1.8E+126 is 126, 1E-131 is -131.
  const exponent = wholeDigits.length > 0 ? wholeDigits.length - 1 : -(fraction.length - fraction.replace(/^0+/, '').length + 1);
  if (exponent > 125) return 'Number overflow. Attempting to store a number with magnitude larger than supported range';
  if (exponent < -130) return 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
  if (significant.length > 38) return 'Attempting to store more than 38 significant digits in a Number';
  return undefined;
}

/** The first out-of-bounds number in an attribute value, nested ones included. */
function valueOutOfBounds(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { N, NS, M, L } = value as { N?: unknown; NS?: unknown[]; M?: Record<string, unknown>; L?: unknown[] };
  if (typeof N === 'string') return numberOutOfBounds(N);
  if (Array.isArray(NS)) return NS.map((n) => (typeof n === 'string' ? numberOutOfBounds(n) : undefined)).find(Boolean);
  const children = M && typeof M === 'object' ? Object.values(M) : Array.isArray(L) ? L : [];
  for (const child of children) {
    const message = valueOutOfBounds(child);
    if (message) return message;
  }
  return undefined;
}

export function installNumberLimits(db: Db): void {
  if (installed.has(db)) return;
  installed.add(db);
  const mutableDb = db as { -readonly [K in keyof Db]: Db[K] };
  const { updateIndexes } = db;
  mutableDb.updateIndexes = (store, table, existingItem, item, cb) => {
    const message = item
      ? Object.values(item as Item)
          .map(valueOutOfBounds)
          .find(Boolean)
      : undefined;
    if (message) return cb(db.validationError(message));
    return updateIndexes(store, table, existingItem, item, cb);
  };
}

const LEADING_PLUS = /^\+(?=[0-9.])/;

/** `body` with one leading `+` dropped from every number string (`N`, and the elements of `NS`), in place. */
export function withoutLeadingPlus<T>(body: T): T {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const record = node as Record<string, unknown>;
    for (const [member, value] of Object.entries(record)) {
      if (member === 'N' && typeof value === 'string') record.N = value.replace(LEADING_PLUS, '');
      else if (member === 'NS' && Array.isArray(value))
        record.NS = value.map((n) => (typeof n === 'string' ? n.replace(LEADING_PLUS, '') : n));
      else visit(value);
    }
  };
  visit(body);
  return body;
}
