/**
 * placeOrder: an order priced by the catalog, written whole or not at all.
 *
 * Two requests in two waves: `orderInputs` (one BatchGetItem of the order's distinct SKUs and the
 * customer's profile, ConsistentRead), then one TransactWriteItems of items that are all new: the
 * idempotency record (TTL), the summary (marked `statsPending` until the relay counts it,
 * customer-stats.ts), the header (holding the order aggregate's sequence), the lines (with their
 * SKU index keys) and the OrderPlaced event, sequence 1 of the order's own aggregate (outbox.ts).
 * No item of the customer is written: one customer's concurrent orders share no item, so they
 * never conflict (the card's hot-key gotcha). The profile rides in the catalog read at no extra
 * request, and a missing customer is NOT_FOUND after the read alone; customers are never deleted,
 * so a profile read consistently stays there for the write.
 *
 * The client sends SKUs and quantities only; each line's `unitPriceCents` and the order's
 * `totalCents` come from the catalog. An unknown or inactive SKU is BAD_USER_INPUT naming the line
 * (`input.lines[3].sku`) and writes nothing.
 *
 * A price that changes between the read and the write: the price read is the price charged, as if
 * the order had been placed the instant before the change (and a product made inactive in between
 * is sold that once, likewise). There is deliberately no ConditionCheck on the products in the
 * transaction: each would take one of its 100 actions, every price edit would cancel the checkouts
 * in flight, and two concurrent orders of one popular product would conflict on its item.
 *
 * Idempotency: the key belongs to the customer (idempotency.ts), and the fingerprint covers the
 * customer, the SKUs and quantities of the lines and placedAt, not the prices, so a replay after
 * a price change (or after the product was made inactive) returns the original order, as charged.
 * Two requests with one key racing: one commits; the other's transaction fails the record's
 * condition (it returns the winner's record) or conflicts on it (it reads the record).
 */
import type { Item, Table, TransactAction } from '../dynamo/table';
import { conflictRetry } from '../dynamo/backoff';
import { badInput, conflict, type DomainError } from './errors';
import { checkTimestamp, EXAMPLE_ID, newId, nowIso } from './keys';
import { checkCustomerId, customerKeys, customerNotFound } from './customer';
import type { EventActor } from './events';
import { EVENT_SEQ, eventPut, outboxEvent } from './outbox';
import { pendingStats } from './customer-stats';
import { batchGetRequest, pattern } from './declare';
import {
  checkIdempotencyKey,
  epochSeconds,
  fingerprint,
  idempotencyClaim,
  IDEMPOTENCY_TTL_SECONDS,
  idempotencyFromItem,
  idempotencyRecord,
  type IdempotencyRecord,
} from './idempotency';
import { contended, guardActions } from './guards';
import { cancellationReasons, failedCondition, isTransactionConflict } from './transactions';
import { checkSku } from './sku-index';
import { productFromItem, productKeys, type ProductRecord } from './product';
import {
  headerToItem,
  indexedLineToItem,
  MAX_LINES,
  ORDER_FIXED_ACTIONS,
  orderDetail,
  summaryToItem,
  type OrderLineRecord,
  type OrderRecord,
} from './order';

const INT_MAX = 2_147_483_647;
const QUANTITY_MAX = 100_000;
/** How far in the future a staff import's placedAt may lie: clocks disagree by this much at most. */
export const PLACED_AT_SKEW_MS = 5 * 60 * 1000;

export interface OrderLineInput {
  sku: string;
  quantity: number;
}
export interface PlaceOrderInput {
  /** Required here: the resolver defaults it to the caller's own customer. */
  customerId: string;
  idempotencyKey: string;
  lines: readonly OrderLineInput[];
  placedAt?: string | null | undefined;
}

/** A line as requested: what the client decides (the price is the catalog's). */
type RequestedLine = Omit<OrderLineRecord, 'unitPriceCents'>;

function checkLines(lines: readonly OrderLineInput[]): RequestedLine[] {
  if (lines.length === 0) throw badInput('an order needs at least one line', 'input.lines');
  if (lines.length > MAX_LINES)
    throw badInput(`an order holds at most ${MAX_LINES} lines, so that it is written in one transaction`, 'input.lines');
  return lines.map((line, index) => {
    const field = `input.lines[${index}]`;
    if (!Number.isInteger(line.quantity) || line.quantity <= 0 || line.quantity > QUANTITY_MAX) {
      throw badInput(`${field}.quantity must be an integer from 1 to ${QUANTITY_MAX}`, `${field}.quantity`);
    }
    return { lineNo: index + 1, sku: checkSku(line.sku, `${field}.sku`), quantity: line.quantity };
  });
}

/** placedAt of a staff import: a UTC timestamp, not in the future (5 minutes of clock skew allowed). */
export function checkPlacedAt(value: string, now = Date.now(), field = 'input.placedAt'): string {
  const placedAt = checkTimestamp(value, field);
  if (Date.parse(placedAt) > now + PLACED_AT_SKEW_MS) throw badInput(`${field} must not be in the future`, field);
  return placedAt;
}

/**
 * placeOrder: see the file comment. The same key with the same payload returns the order it
 * produced (also when replayed concurrently: the losers read the winner's order); with another
 * payload it is CONFLICT. NOT_FOUND for a missing customer. Every input check happens before the
 * first request; an order too large for one transaction is BAD_USER_INPUT before anything is sent.
 */
export async function placeOrder(table: Table, input: PlaceOrderInput, actor: EventActor): Promise<OrderRecord> {
  const customerId = checkCustomerId(input.customerId, 'input.customerId');
  const key = checkIdempotencyKey(input.idempotencyKey);
  const requested = checkLines(input.lines);
  const requestedAt = input.placedAt == null ? undefined : checkPlacedAt(input.placedAt);
  const digest = fingerprint({
    customerId,
    lines: requested.map(({ sku, quantity }) => ({ sku, quantity })),
    placedAt: requestedAt ?? null,
  });

  // Wave 1: the current prices and the customer's profile (whether it exists), consistent.
  const { catalog, profile } = await orderInputs(
    table,
    customerId,
    requested.map((line) => line.sku),
  );
  const unsold = requested.findIndex((line) => !catalog.get(line.sku)?.active);
  if (unsold >= 0) {
    const line = requested[unsold]!;
    const refusal = badInput(
      `input.lines[${unsold}].sku: ${catalog.has(line.sku) ? `${line.sku} is no longer sold` : `no product has SKU ${line.sku}`}`,
      `input.lines[${unsold}].sku`,
    );
    return replayOr(table, customerId, key, digest, refusal);
  }
  if (!profile) throw customerNotFound(customerId);
  const lines: OrderLineRecord[] = requested.map((line) => ({ ...line, unitPriceCents: catalog.get(line.sku)!.priceCents }));
  const totalCents = lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
  if (totalCents > INT_MAX) throw badInput(`the order total must be at most ${INT_MAX} cents`, 'input.lines');

  const order: OrderRecord & { lines: OrderLineRecord[] } = {
    id: newId(),
    customerId,
    placedAt: requestedAt ?? nowIso(),
    status: 'PENDING',
    totalCents,
    lineCount: lines.length,
    lines,
  };
  const now = epochSeconds();
  const actions = guardActions(placeOrderActions(order, { key, fingerprint: digest, now }, actor, table.writeShards));
  if (actions.length !== ORDER_FIXED_ACTIONS + lines.length)
    throw new Error('placeOrder writes ORDER_FIXED_ACTIONS items besides its lines');
  // Wave 2: the transaction. Every item in it is new, so the only item another request can hold
  // is the idempotency record: a request with the same key in flight. Then its record answers
  // (one GetItem) rather than this whole transaction sent again.
  const retry = conflictRetry();
  let peeks = 0;
  for (;;) {
    try {
      await table.transactWrite(actions);
      return order;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const claim = reasons[0];
      const held = failedCondition(claim) && claim?.Item ? idempotencyFromItem(claim.Item, now) : undefined;
      if (held) return heldOrder(table, held, digest);
      if (!isTransactionConflict(reasons)) throw error;
      if (claim?.Code === 'TransactionConflict' && peeks < IDEMPOTENCY_PEEKS) {
        peeks++;
        const record = await idempotencyRecord(table, customerId, key);
        if (record) return heldOrder(table, record, digest);
      }
      if (!(await retry.wait()))
        throw contended(error, 'the order met concurrent writes and was not placed; send it again with the same idempotencyKey');
    }
  }
}

/**
 * placeOrder's transaction, every item new: the idempotency record claimed for `claim.key` (free or
 * expired at `claim.now`), the summary (stats pending), the header holding the order aggregate's
 * sequence, one item a line (with its SKU index keys) and OrderPlaced, the aggregate's sequence 1.
 * No item of the customer is written. `shards`: the table's `writeShards` (the summary's status key).
 */
export function placeOrderActions(
  order: OrderRecord & { lines: readonly OrderLineRecord[] },
  claim: { key: string; fingerprint: string; now: number },
  actor: EventActor,
  shards: number,
): TransactAction[] {
  const { id, customerId, status, totalCents, lineCount, placedAt } = order;
  const event = outboxEvent(
    {
      eventType: 'OrderPlaced',
      aggregateType: 'Order',
      aggregateId: id,
      customerId,
      payload: { orderId: id, status, totalCents, lineCount, placedAt },
    },
    1,
    actor,
  );
  const record = {
    customerId,
    key: claim.key,
    orderId: id,
    fingerprint: claim.fingerprint,
    expiresAt: claim.now + IDEMPOTENCY_TTL_SECONDS,
  };
  return [
    // The claim is its declared pattern's request (idempotency.ts): what comes back when it fails.
    ...idempotencyClaim.request(record, claim.now).actions,
    { Put: { Item: pendingStats(summaryToItem(order, shards)), ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...headerToItem(order), [EVENT_SEQ]: event.sequence }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ...order.lines.map((line): TransactAction => ({ Put: { Item: indexedLineToItem(order, line) } })),
    eventPut(event),
  ];
}

/**
 * Reads of the idempotency record that a conflicted placeOrder makes at most (a request with the
 * same key held it): src/admission/cost.ts charges them.
 */
export const IDEMPOTENCY_PEEKS = 2;

/** orderInputs' BatchGetItem: the profile's key and the distinct SKUs' product keys, consistent. */
const inputsGet = (customerId: string, skus: readonly string[]) =>
  batchGetRequest([customerKeys.profile(customerId), ...[...new Set(skus)].map(productKeys.key)], { consistent: true });

/**
 * orderInputs: the current products of the order's distinct SKUs and the customer's profile
 * (whether it exists), in ONE BatchGetItem with ConsistentRead: a price just
 * changed is the price read. At most MAX_LINES + 1 = 97 keys, one call.
 */
export const orderInputs = pattern(
  {
    entity: 'Product',
    graphql: ['Mutation.placeOrder'],
    request: inputsGet,
    example: [EXAMPLE_ID, ['MUG-1', 'TEA-2']],
    scale: { name: 'SKUs', args: (n): [string, string[]] => [EXAMPLE_ID, Array.from({ length: n }, (_, i) => `SKU-${i}`)] },
    note: `wave 1 of 2, then the transaction; at most ${MAX_LINES} SKUs: one call`,
  },
  async function orderInputs(
    table: Table,
    customerId: string,
    skus: readonly string[],
  ): Promise<{ catalog: Map<string, ProductRecord>; profile: Item | undefined }> {
    const request = inputsGet(customerId, skus);
    const [profileKey] = request.keys;
    const items = await table.batchGet(request.keys, { consistent: request.consistent });
    const profile = items.find((item) => item.PK === profileKey!.PK && item.SK === profileKey!.SK);
    const catalog = new Map<string, ProductRecord>();
    for (const item of items) {
      if (item === profile) continue;
      const product = productFromItem(item);
      catalog.set(product.sku, product);
    }
    return { catalog, profile };
  },
);

/** The order a live record of this key produced, when the payload is the same; CONFLICT when not. */
async function heldOrder(table: Table, held: IdempotencyRecord, digest: string): Promise<OrderRecord> {
  if (held.fingerprint !== digest) throw conflict(`idempotencyKey ${held.key} was already used for another order`, 'input.idempotencyKey');
  const existing = await orderDetail(table, held.orderId, true);
  if (!existing) throw new Error(`idempotency record ${held.key} names order ${held.orderId}, which does not exist`);
  return existing;
}

/**
 * A replay of an order whose SKU has since left the catalog still returns that order: the
 * refusal is thrown only when no live record of this key holds the same payload. One consistent
 * GetItem (`idempotencyRecord`), on this error path only.
 */
async function replayOr(table: Table, customerId: string, key: string, digest: string, refusal: DomainError): Promise<OrderRecord> {
  const held = await idempotencyRecord(table, customerId, key);
  if (!held || held.fingerprint !== digest) throw refusal;
  return heldOrder(table, held, digest);
}
