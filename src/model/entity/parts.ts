/**
 * Key parts shared by several entities: their shapes (the regular expressions cursors and parsed
 * keys are checked against) and how values become key text. Also the two functions a key part is
 * computed with: `canonicalEmail` and the status index's `shardOf`.
 */
import type { KeyPart } from '../declare';
import { ULID_SHAPE } from '../keys';
import { checkWriteShards } from '../../dynamo/table';

/** Ids are ULIDs as the server writes them (upper case): keys.ts declares the shape. */
export const ID = ULID_SHAPE;
/** The fixed-width UTC timestamp sort keys rely on (keys.ts, `checkTimestamp`). */
const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
/** A text that stands inside a key: never the separator. */
export const keyText = (max: number) => `[^#]{1,${max}}`;

export const ORDER_STATUSES = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The longest SKU (it stands inside a key). */
export const SKU_MAX = 64;

/**
 * The form of an email that stands in keys: Unicode NFKC (compatibility characters become their
 * plain forms: `\u212A` → `K`, fullwidth `＠` → `@`), then lower-case. checkEmail validates the
 * NFKC form, so a fullwidth `＃` is refused like `#`.
 */
export function canonicalEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase();
}

/**
 * The shard of an order in the status index: FNV-1a of its id mod `shards` (the table's
 * `writeShards`), stable across processes and restarts.
 */
export function shardOf(orderId: string, shards: number): number {
  checkWriteShards(shards, 'shards');
  let hash = 0x811c9dc5;
  for (let i = 0; i < orderId.length; i++) {
    hash ^= orderId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

export const email: KeyPart = { shape: '[^#]+', doc: 'email NFKC, lower-case', format: (value) => canonicalEmail(String(value)) };
export const customerId: KeyPart = { shape: ID };
export const placedAt: KeyPart = { shape: ISO, doc: 'placedAt ISO' };
export const orderId: KeyPart = { shape: ID };
export const sku: KeyPart = { shape: keyText(SKU_MAX) };
export const digits = (width: number, doc: string): KeyPart => ({
  shape: `\\d{${width}}`,
  doc,
  format: (value) => String(value).padStart(width, '0'),
});
