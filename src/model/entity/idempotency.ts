/**
 * Idempotency record: keys, lifecycle (the only entity with the TTL attribute) and codec, declared
 * once. Operations: src/model/idempotency.ts, src/model/place-order.ts.
 */
import type { Item } from '../../dynamo/table';
import { TTL_ATTRIBUTE } from '../../dynamo/definition';
import { defineEntity } from '../declare';
import { customerId, keyText } from './parts';

export const idempotencyEntity = defineEntity({
  name: 'Idempotency record',
  type: 'IDEMPOTENCY',
  parts: { customerId, key: { shape: keyText(128) } },
  table: { PK: 'IDEMPOTENCY#{customerId}#{key}', SK: 'IDEMPOTENCY' },
  expires: true,
  codec: { toItem: idempotencyToItem, fromItem: idempotencyFromItem },
});

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
    ...idempotencyEntity.itemKeys({ customerId: record.customerId, key: record.key }),
    orderId: record.orderId,
    fingerprint: record.fingerprint,
    [TTL_ATTRIBUTE]: record.expiresAt,
  };
}

/** The record an item holds, or undefined when the item has expired (DynamoDB may not have deleted it yet). */
export function idempotencyFromItem(item: Item, nowSeconds = epochSeconds()): IdempotencyRecord | undefined {
  const expiresAt = item[TTL_ATTRIBUTE];
  if (typeof expiresAt !== 'number' || expiresAt <= nowSeconds) return undefined;
  // A record of before keys were per customer (`IDEMPOTENCY#<key>`) has no customer.
  const owner = idempotencyEntity.templates.PK.parse(item.PK) ?? {
    customerId: '',
    key: String(item.PK).slice(idempotencyEntity.templates.PK.prefix.length),
  };
  return {
    customerId: owner.customerId!,
    key: owner.key!,
    orderId: String(item.orderId),
    fingerprint: String(item.fingerprint),
    expiresAt,
  };
}

export function epochSeconds(date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
