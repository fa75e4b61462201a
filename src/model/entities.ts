/**
 * Every entity of the single table, listed explicitly, in documentation order. Each is declared
 * once under src/model/entity/: its `type`, its key templates for the table and GSI1, the shape of
 * each key part, its lifecycle and its codec (`customerToItem`/`customerFromItem`, …, whose items
 * start with `entity.itemKeys(…)`). Key builders (`customerKeys`, …), parsers, `matches`, cursor
 * shape checks, the GSI1 keys the doctor expects and the entity table of docs/access-patterns.md
 * are derived from these declarations (declare.ts).
 *
 * Nothing here imports an operation module, so the write guards (guards.ts) look items up here
 * without an import cycle.
 */
import type { EntityDeclaration } from './declare';
import { addressEntity } from './entity/address';
import { customerEntity, emailGuardEntity } from './entity/customer';
import { eventEntity } from './entity/event';
import { idempotencyEntity } from './entity/idempotency';
import { migrationAppliedEntity, migrationCheckpointEntity } from './entity/migration';
import { orderHeaderEntity, orderLineEntity, orderSummaryEntity } from './entity/order';
import { productEntity } from './entity/product';
import { deadLetterEntity, relayCheckpointEntity } from './entity/relay-checkpoint';

export { addressEntity } from './entity/address';
export { customerEntity, emailGuardEntity } from './entity/customer';
export { eventEntity } from './entity/event';
export { idempotencyEntity } from './entity/idempotency';
export { migrationAppliedEntity, migrationCheckpointEntity } from './entity/migration';
export { orderHeaderEntity, orderLineEntity, orderSummaryEntity } from './entity/order';
export { productEntity } from './entity/product';
export { deadLetterEntity, relayCheckpointEntity } from './entity/relay-checkpoint';
export { canonicalEmail, ORDER_STATUSES, shardOf, SKU_MAX, type OrderStatus } from './entity/parts';

/** Every entity of the table; no two claim one key (test/model/declare.test.ts). */
export const ENTITIES: readonly EntityDeclaration[] = [
  emailGuardEntity,
  customerEntity,
  addressEntity,
  orderSummaryEntity,
  orderHeaderEntity,
  orderLineEntity,
  idempotencyEntity,
  eventEntity,
  productEntity,
  migrationAppliedEntity,
  migrationCheckpointEntity,
  relayCheckpointEntity,
  deadLetterEntity,
];

export function entities(): readonly EntityDeclaration[] {
  return ENTITIES;
}

/** The entity an item (or a bare key) belongs to, by its table keys; undefined for one no entity claims. */
export function entityOf(item: Record<string, unknown>): EntityDeclaration | undefined {
  return ENTITIES.find((entity) => entity.claims(item));
}
