/**
 * Guards on every write the model makes, applied before anything is sent:
 * - an item larger than DynamoDB's 400 KB (names and values counted as DynamoDB counts them) is
 *   BAD_USER_INPUT, so an oversized write never reaches the table;
 * - the TTL attribute on any entity not declared `expires` (only idempotency records and outbox
 *   events are) is a bug (DynamoDB would silently delete that item one day): refused with an Error;
 *   so is an item of an expiring entity put without it (it would never be deleted);
 * - an item whose keys no entity claims is a bug too.
 * `writeTransaction` also retries a transaction cancelled by a conflict with another one, for a
 * bounded time, then answers UNAVAILABLE (`contention`).
 * For an Update the final item is not known before it is applied; its key and the values it sets
 * are checked, and DynamoDB enforces the rest.
 */
import type { Item, Table, TransactAction, WriteGuard } from '../dynamo/table';
import { TTL_ATTRIBUTE } from '../dynamo/definition';
import { ENTITIES, entityOf } from './entities';
import { badInput, unavailable } from './errors';
import { cancellationReasons, failedCondition, isTransactionConflict, type CancellationReason } from './transactions';
import { conflictRetry } from '../dynamo/backoff';

export { CONFLICT_BUDGET_MS, CONFLICT_MIN_ATTEMPTS } from '../dynamo/backoff';

export const MAX_ITEM_BYTES = 400 * 1024;

/** The size of an item as DynamoDB counts it: attribute names plus values, in bytes. */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') return 3 + itemSize(value as Record<string, unknown>) + Object.keys(value).length;
  throw new Error(`cannot size a ${typeof value}`);
}

/**
 * Numbers: one byte per two significant digits, plus one, plus one when the digits pair up
 * unevenly against the decimal exponent, plus one when negative (the formula dynalite
 * reproduces from DynamoDB's behaviour).
 */
function numberSize(text: string): number {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a number: ${text}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const all = `${whole}${fraction}`;
  const leading = all.length - all.replace(/^0+/, '').length;
  const digits = all.replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length === 0) return 1;
  // The exponent of the most significant digit.
  const e = whole.length - 1 - leading + Number(exponent);
  return 1 + Math.ceil(digits.length / 2) + (digits.length % 2 || e % 2 ? 0 : 1) + (sign ? 1 : 0);
}

/** The entities that may expire, as named in refusals: "idempotency records and outbox events". */
const EXPIRING = ENTITIES.filter((entity) => entity.expires)
  .map((entity) => `${entity.name.toLowerCase()}s`)
  .join(' and ');

/** Checks an item about to be put; returns it. */
export function guardItem(item: Item): Item {
  const entity = entityOf(item);
  if (!entity) throw new Error(`refusing to write ${String(item.PK)}/${String(item.SK)}: no entity claims that key`);
  if (item[TTL_ATTRIBUTE] !== undefined && !entity.expires) {
    throw new Error(`refusing to write ${TTL_ATTRIBUTE} on a ${entity.name}: only ${EXPIRING} may expire`);
  }
  if (entity.expires && typeof item[TTL_ATTRIBUTE] !== 'number') {
    throw new Error(`refusing to write a ${entity.name} without ${TTL_ATTRIBUTE}: it would never expire`);
  }
  const size = itemSize(item);
  if (size > MAX_ITEM_BYTES)
    throw badInput(`the ${entity.name.toLowerCase()} would be ${size} bytes, more than DynamoDB's ${MAX_ITEM_BYTES}`);
  return item;
}

/** Checks the key and the values an update sets (a lower bound of the item it leaves). */
function guardUpdate(update: {
  Key?: Record<string, unknown> | undefined;
  UpdateExpression?: string | undefined;
  ExpressionAttributeValues?: Record<string, unknown> | undefined;
}) {
  const key = (update.Key ?? {}) as Item;
  const entity = entityOf(key);
  if (!entity) throw new Error(`refusing to update ${String(key.PK)}/${String(key.SK)}: no entity claims that key`);
  if (!entity.expires && new RegExp(`\\b${TTL_ATTRIBUTE}\\b`).test(update.UpdateExpression ?? '')) {
    throw new Error(`refusing to set ${TTL_ATTRIBUTE} on a ${entity.name}: only ${EXPIRING} may expire`);
  }
  const size =
    itemSize(key) + Object.values(update.ExpressionAttributeValues ?? {}).reduce((sum: number, value) => sum + valueSize(value), 0);
  if (size > MAX_ITEM_BYTES) throw badInput(`the ${entity.name.toLowerCase()} would pass DynamoDB's ${MAX_ITEM_BYTES} bytes`);
}

/** Checks every action of a transaction; returns them unchanged. */
export function guardActions(actions: readonly TransactAction[]): readonly TransactAction[] {
  for (const action of actions) {
    if ('Put' in action) guardItem(action.Put.Item as Item);
    else if ('Update' in action) guardUpdate(action.Update);
  }
  return actions;
}

/**
 * One guarded TransactWriteItems. A cancellation for `TransactionConflict` (another transaction
 * held one of the items; Amazon DynamoDB reports it, the SDK does not retry it) means nothing was
 * written, so the same transaction is sent again after a full-jitter backoff, its conditions
 * evaluated anew, for `CONFLICT_BUDGET_MS` (src/dynamo/backoff.ts); then it is UNAVAILABLE (`contention`, retryable),
 * never the engine's cancellation. Any other cancellation is the caller's to read.
 */
export async function writeTransaction(table: Table, actions: readonly TransactAction[]): Promise<void> {
  const guarded = guardActions(actions);
  const retry = conflictRetry();
  for (;;) {
    try {
      await table.transactWrite(guarded);
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons || !isTransactionConflict(reasons)) throw error;
      if (!(await retry.wait())) throw contended(error);
    }
  }
}

/**
 * The retryable UNAVAILABLE of a write whose conflict retries ran out; the engine's cancellation
 * stays its cause (for the log line), never the client's message.
 */
export function contended(
  cancellation: unknown,
  message = 'the write kept conflicting with concurrent writes of the same items; try again',
) {
  return Object.assign(unavailable('contention', message), { cause: cancellation });
}

/** One guarded UpdateItem. */
export function writeUpdate(table: Table, input: Parameters<Table['update']>[0]) {
  guardUpdate(input);
  return table.update(input);
}

/** The write guards as the seam applies them (`Table.withGuard`): every put and update checked. */
export const writeGuard: WriteGuard = {
  item: (item) => void guardItem(item),
  update: (update) => guardUpdate(update),
};

/** `table` with the write guards on every write it sends (seed, bench and test loaders use it). */
export function guarded(table: Table): Table {
  return table.withGuard(writeGuard);
}

/** How many decisions an optimistic write makes at most before it is UNAVAILABLE (contention). */
export const WRITE_ATTEMPTS = 5;

/**
 * What one step of an optimistic write decides from the aggregate's root item as last seen:
 * nothing to write (`done`), or the transaction to send (`write`, its first action the root's,
 * conditioned on what was seen and returning ALL_OLD) and what it answers once committed (`then`);
 * `refused` turns a cancellation into the domain error it means (a taken email), if it does.
 */
export type WriteStep<T> =
  { done: T } | { write: readonly TransactAction[]; then: T; refused?: (reasons: readonly CancellationReason[]) => Error | undefined };

/**
 * The one loop of optimistic writes (updateCustomer, the address mutations, updateOrderStatus,
 * putProduct): `step` decides from the root as last seen (`seen`: read once by the caller, or
 * undefined when it writes blind). When the root's condition fails, its item as it now stands
 * (ALL_OLD) is the next step's, without a read; any other cancellation decides again from the same
 * item (a stale one fails its condition then). At most WRITE_ATTEMPTS steps, then UNAVAILABLE
 * (`contention`, retryable) saying `busy`. Transaction conflicts are writeTransaction's (a
 * time-bounded backoff) within each step.
 */
export async function optimisticWrite<T>(
  table: Table,
  seen: Item | undefined,
  step: (seen: Item | undefined) => WriteStep<T>,
  busy: string,
): Promise<T> {
  let root = seen;
  let cancellation: unknown;
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const decided = step(root);
    if ('done' in decided) return decided.done;
    try {
      await writeTransaction(table, decided.write);
      return decided.then;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const refusal = decided.refused?.(reasons);
      if (refusal) throw refusal;
      if (failedCondition(reasons[0])) root = reasons[0]?.Item;
      cancellation = error;
    }
  }
  throw contended(cancellation, busy);
}
