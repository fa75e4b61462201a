/**
 * placeOrder: an order priced by the catalog, written whole or not at all.
 *
 * Two requests in two waves: `catalogPrices` (one BatchGetItem of the order's distinct SKUs,
 * ConsistentRead, product.ts), then one TransactWriteItems holding the customer ConditionCheck,
 * the idempotency record (TTL), the summary, the header and the lines (with their SKU index keys).
 * The client sends SKUs and quantities only; each line's `unitPriceCents` and the order's
 * `totalCents` come from the catalog. An unknown or inactive SKU is BAD_USER_INPUT naming the line
 * (`input.lines[3].sku`) and writes nothing.
 *
 * A price that changes between the read and the write: the price read is the price charged, as if
 * the order had been placed the instant before the change (and a product made inactive in between
 * is sold that once, likewise). There is deliberately no ConditionCheck on the products in the
 * transaction: each would take one of its 100 actions (an order of distinct SKUs could then hold
 * only 48 lines instead of 96), every price edit would cancel the checkouts in flight, and two
 * concurrent orders of one popular product would conflict with each other on its item.
 *
 * Idempotency: the key belongs to the customer (idempotency.ts), and the fingerprint covers the
 * customer, the SKUs and quantities of the lines and placedAt, not the prices, so a replay after
 * a price change (or after the product was made inactive) returns the original order, as charged.
 */
import type { Table, TransactAction } from '../dynamo/table';
import { badInput, conflict, type DomainError } from './errors';
import { checkTimestamp, newId, nowIso } from './keys';
import { checkCustomerId, customerKeys, customerNotFound } from './customer';
import {
  checkIdempotencyKey,
  epochSeconds,
  fingerprint,
  IDEMPOTENCY_FREE,
  IDEMPOTENCY_TTL_SECONDS,
  idempotencyFromItem,
  idempotencyRecord,
  idempotencyToItem,
  type IdempotencyRecord,
} from './idempotency';
import { writeTransaction } from './guards';
import { cancellationReasons, failedCondition } from './transactions';
import { checkSku } from './sku-index';
import { catalogPrices } from './product';
import { headerToItem, indexedLineToItem, MAX_LINES, orderDetail, summaryToItem, type OrderLineRecord, type OrderRecord } from './order';

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
export async function placeOrder(table: Table, input: PlaceOrderInput): Promise<OrderRecord> {
  const customerId = checkCustomerId(input.customerId, 'input.customerId');
  const key = checkIdempotencyKey(input.idempotencyKey);
  const requested = checkLines(input.lines);
  const requestedAt = input.placedAt == null ? undefined : checkPlacedAt(input.placedAt);
  const digest = fingerprint({
    customerId,
    lines: requested.map(({ sku, quantity }) => ({ sku, quantity })),
    placedAt: requestedAt ?? null,
  });

  // Wave 1: the current prices, consistent.
  const catalog = await catalogPrices(
    table,
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
  const lines: OrderLineRecord[] = requested.map((line) => ({ ...line, unitPriceCents: catalog.get(line.sku)!.priceCents }));
  const totalCents = lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
  if (totalCents > INT_MAX) throw badInput(`the order total must be at most ${INT_MAX} cents`, 'input.lines');

  const order: OrderRecord = {
    id: newId(),
    customerId,
    placedAt: requestedAt ?? nowIso(),
    status: 'PENDING',
    totalCents,
    lineCount: lines.length,
    lines,
  };
  const now = epochSeconds();
  const actions: TransactAction[] = [
    { ConditionCheck: { Key: customerKeys.profile(customerId), ConditionExpression: 'attribute_exists(PK)' } },
    {
      Put: {
        Item: idempotencyToItem({ customerId, key, orderId: order.id, fingerprint: digest, expiresAt: now + IDEMPOTENCY_TTL_SECONDS }),
        ConditionExpression: IDEMPOTENCY_FREE,
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    { Put: { Item: summaryToItem(order), ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: headerToItem(order), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...lines.map((line): TransactAction => ({ Put: { Item: indexedLineToItem(order, line) } })),
  ];
  // Wave 2: the transaction.
  try {
    await writeTransaction(table, actions);
    return order;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const held = failedCondition(reasons[1]) && reasons[1]?.Item ? idempotencyFromItem(reasons[1].Item, now) : undefined;
    if (held) return heldOrder(table, held, digest);
    if (failedCondition(reasons[0])) throw customerNotFound(customerId);
    throw error;
  }
}

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
