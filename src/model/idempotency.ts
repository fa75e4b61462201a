/**
 * Idempotency record: remembers which order an `idempotencyKey` produced, for a while.
 *
 * | pattern           | index | key                                                     |
 * | ----------------- | ----- | ------------------------------------------------------- |
 * | idempotencyRecord | table | PK = IDEMPOTENCY#<customerId>#<key>, SK = IDEMPOTENCY   |
 *
 * A key belongs to the customer who ordered: the same key sent by two customers is two orders,
 * and no customer can learn (through a CONFLICT) or replay (getting the order back) another's
 * key. The customer id is a ULID and the key holds no `#`, so the PK splits back unambiguously.
 * Records written before keys were per customer (`IDEMPOTENCY#<key>`) are never read again; they
 * expire within 24 hours of their order like every record (a retry sent across that deploy is
 * not recognised as a replay).
 *
 * The only entity that carries the TTL attribute (`expiresAt`, epoch seconds). DynamoDB deletes
 * expired items lazily (up to two days late), so an expired record is treated as absent: the
 * write condition lets a new order overwrite it.
 */
import { createHash } from 'node:crypto';
import type { Item } from '../dynamo/table';
import { TTL_ATTRIBUTE } from '../dynamo/definition';
import { checkKeyPart, SEP } from './keys';
import { declareEntity, declarePatterns, pkOf, skOf } from './declare';

export const IDEMPOTENCY_PREFIX = `IDEMPOTENCY${SEP}`;
export const IDEMPOTENCY_SK = 'IDEMPOTENCY';
/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_MAX = 128;

export const idempotencyKeys = {
  key: (customerId: string, idempotencyKey: string) => ({ PK: `${IDEMPOTENCY_PREFIX}${customerId}${SEP}${idempotencyKey}`, SK: IDEMPOTENCY_SK }),
};

export const idempotencyEntity = declareEntity({
  name: 'Idempotency record',
  type: 'IDEMPOTENCY',
  keys: { PK: 'IDEMPOTENCY#<customerId>#<key>', SK: 'IDEMPOTENCY' },
  matches: (item) => pkOf(item).startsWith(IDEMPOTENCY_PREFIX) && skOf(item) === IDEMPOTENCY_SK,
  requiresGsi1: false,
  expires: true,
});

export const idempotencyPatterns = declarePatterns(
  { name: 'idempotencyRecord', entity: 'Idempotency record', graphql: ['Mutation.placeOrder'], index: 'table', operation: 'GetItem', keyCondition: 'PK = IDEMPOTENCY#<customerId>#<key>, SK = IDEMPOTENCY (the ALL_OLD item of a cancelled placeOrder; GetItem, consistent, only when a replay names a SKU no longer sold)', order: '—', bound: '1 item' },
);

export function checkIdempotencyKey(value: string, field = 'input.idempotencyKey'): string {
  return checkKeyPart(value, field, KEY_MAX);
}

/** A stable digest of a request payload: equal payloads, and only they, share it. */
export function fingerprint(payload: unknown): string {
  return createHash('sha256').update(JSON.stringify(payload)).digest('base64url');
}

export interface IdempotencyRecord {
  /** The customer the key belongs to. */
  customerId: string;
  key: string;
  orderId: string;
  fingerprint: string;
  /** Epoch seconds. */
  expiresAt: number;
}

export function idempotencyToItem(record: IdempotencyRecord): Item {
  return {
    ...idempotencyKeys.key(record.customerId, record.key),
    type: 'IDEMPOTENCY',
    orderId: record.orderId,
    fingerprint: record.fingerprint,
    [TTL_ATTRIBUTE]: record.expiresAt,
  };
}

/** The record an item holds, or undefined when the item has expired (DynamoDB may not have deleted it yet). */
export function idempotencyFromItem(item: Item, nowSeconds = epochSeconds()): IdempotencyRecord | undefined {
  const expiresAt = item[TTL_ATTRIBUTE];
  if (typeof expiresAt !== 'number' || expiresAt <= nowSeconds) return undefined;
  const owned = String(item.PK).slice(IDEMPOTENCY_PREFIX.length);
  const at = owned.indexOf(SEP);
  return {
    customerId: at < 0 ? '' : owned.slice(0, at),
    key: owned.slice(at + 1),
    orderId: String(item.orderId),
    fingerprint: String(item.fingerprint),
    expiresAt,
  };
}

/** The write condition of a new record: no live record holds the key. */
export const IDEMPOTENCY_FREE = `attribute_not_exists(PK) OR ${TTL_ATTRIBUTE} <= :now`;

export function epochSeconds(date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
