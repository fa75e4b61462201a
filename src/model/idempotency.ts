/**
 * Idempotency record: remembers which order an `idempotencyKey` produced, for a while.
 *
 * Keys and codec: `idempotencyEntity` (src/model/entity/idempotency.ts), PK = IDEMPOTENCY#<customerId>#<key>, SK = IDEMPOTENCY.
 * placeOrder reads a record in one of two ways, both declared below: as the ALL_OLD item of its
 * cancelled transaction (`idempotencyClaim`), or with one consistent GetItem when it refuses a SKU
 * (`idempotencyRecord`): a replay of an order whose product has since left the catalog.
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
import type { Table } from '../dynamo/table';
import { TTL_ATTRIBUTE } from '../dynamo/definition';
import { checkKeyPart, EXAMPLE_ID } from './keys';
import { declarePattern, getRequest, pattern, transactRequest } from './declare';
import { idempotencyEntity, idempotencyFromItem, idempotencyToItem, type IdempotencyRecord } from './entity/idempotency';

export const IDEMPOTENCY_PREFIX = idempotencyEntity.templates.PK.prefix;
export const IDEMPOTENCY_SK = idempotencyEntity.templates.SK.text;
/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_MAX = 128;

export const idempotencyKeys = {
  key: (customerId: string, idempotencyKey: string) => idempotencyEntity.key({ customerId, key: idempotencyKey }),
};

export function checkIdempotencyKey(value: string, field = 'input.idempotencyKey'): string {
  return checkKeyPart(value, field, KEY_MAX);
}

/** A stable digest of a request payload: equal payloads, and only they, share it. */
export function fingerprint(payload: unknown): string {
  return createHash('sha256').update(JSON.stringify(payload)).digest('base64url');
}

// ---- codec (declared with the entity, src/model/entity/idempotency.ts) ---------------------

export { epochSeconds, idempotencyFromItem, idempotencyToItem, type IdempotencyRecord } from './entity/idempotency';

/** The write condition of a new record: no live record holds the key. */
export const IDEMPOTENCY_FREE = `attribute_not_exists(PK) OR ${TTL_ATTRIBUTE} <= :now`;

/**
 * idempotencyClaim: placeOrder's transaction puts the record under IDEMPOTENCY_FREE with
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD`, so a cancelled transaction returns the live
 * record of the key (a replay, or the same key for another order): no read request of its own.
 * Its builder is the transaction's first action (place-order.ts `placeOrderActions`).
 */
export const idempotencyClaim = declarePattern('idempotencyClaim', {
  entity: 'Idempotency record',
  graphql: ['Mutation.placeOrder'],
  request: (record: IdempotencyRecord, now: number) =>
    transactRequest([
      {
        Put: {
          Item: idempotencyToItem(record),
          ConditionExpression: IDEMPOTENCY_FREE,
          ExpressionAttributeValues: { ':now': now },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]),
  example: [{ customerId: EXAMPLE_ID, key: '<key>', orderId: EXAMPLE_ID, fingerprint: '<fingerprint>', expiresAt: 1 }, 0],
  note: 'an action of placeOrder’s transaction; when cancelled, the live record comes back as ALL_OLD',
});

/** idempotencyRecord's GetItem: consistent, so a record just claimed is read. */
const recordGet = (customerId: string, key: string) => getRequest({ Key: idempotencyKeys.key(customerId, key), ConsistentRead: true });

/**
 * idempotencyRecord: the live record of a customer's key, one consistent GetItem; undefined when
 * there is none (or it expired). placeOrder sends it only when it refuses a SKU (a replay of an
 * order whose product left the catalog) or its claim met a transaction in flight.
 */
export const idempotencyRecord = pattern(
  {
    entity: 'Idempotency record',
    graphql: ['Mutation.placeOrder'],
    request: recordGet,
    example: [EXAMPLE_ID, '<key>'],
    note: 'only when placeOrder refuses a SKU or its claim conflicts',
  },
  async function idempotencyRecord(table: Table, customerId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const item = await table.get(recordGet(customerId, key).input);
    return item ? idempotencyFromItem(item) : undefined;
  },
);
