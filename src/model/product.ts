/**
 * Product: the catalog placeOrder takes its prices from, in the same table.
 *
 * Access patterns: product, products, catalogPrices (declared on the functions below).
 *
 * Keys and codec: `productEntity` (src/model/entity/product.ts): PK = CATALOG, SK = PRODUCT#<sku>. Every product lives in ONE item collection:
 * - GSI1's projection is INCLUDE and cannot change; it lacks `priceCents` and `active` (and a
 *   product's `sku`), so a catalog listed from the index would need a second read of every page
 *   from the table. A base-table collection lists the catalog in one Query, by SKU.
 * - One partition key is not a hot-partition trap here: the table has no LSI, so DynamoDB may split
 *   a busy collection by sort-key ranges across partitions (an LSI would pin the collection to one
 *   partition of at most 10 GB). Reads of single products and the catalogPrices BatchGetItem are
 *   by full key, so they spread over whatever ranges the collection has been split into.
 * A product is never deleted, only made inactive: orders keep naming its SKU.
 */
import type { Item, Key, Table, TransactAction } from '../dynamo/table';
import { badInput } from './errors';
import type { EventActor } from './events';
import { EVENT_SEQ, eventPut, outboxEvent, sequenceOf, sequenceStep } from './outbox';
import { checkText } from './keys';
import { checkFirst, decodeCursor, encodeCursor, type PageArgs } from './cursor';
import { optimisticWrite } from './guards';
import { checkSku } from './sku-index';
import { batchGetRequest, getRequest, pattern, queryRequest, sendQuery } from './declare';
import { productEntity, productFromItem, productToItem, type ProductRecord } from './entity/product';

export const CATALOG_PK = productEntity.templates.PK.text;
export const PRODUCT_PREFIX = productEntity.templates.SK.prefix;
export const PRODUCT_NAME_MAX = 200;
export const PRICE_MAX_CENTS = 100_000_000;

export const productKeys = {
  key: (sku: string): Key => productEntity.key({ sku }),
  /** The SKU of a product sort key, or undefined when the key is not a product's. */
  skuOf: (sk: string): string | undefined => (sk.startsWith(PRODUCT_PREFIX) ? sk.slice(PRODUCT_PREFIX.length) : undefined),
};

// ---- codec (declared with the entity, src/model/entity/product.ts) -------------------------

export { productFromItem, productToItem, type ProductRecord } from './entity/product';

// ---- validation ----------------------------------------------------------------------------

export interface ProductInput {
  sku: string;
  name: string;
  priceCents: number;
  active: boolean;
}

/** A price in cents: an integer from 0 to 100,000,000 (one million in major units). */
export function checkPriceCents(value: number, field = 'input.priceCents'): number {
  if (!Number.isInteger(value) || value < 0 || value > PRICE_MAX_CENTS)
    throw badInput(`${field} must be an integer from 0 to ${PRICE_MAX_CENTS}`, field);
  return value;
}

export function checkProduct(input: ProductInput): ProductRecord {
  if (typeof input.active !== 'boolean') throw badInput('input.active must be true or false', 'input.active');
  return {
    sku: checkSku(input.sku, 'input.sku'),
    name: checkText(input.name, 'input.name', PRODUCT_NAME_MAX),
    priceCents: checkPriceCents(input.priceCents),
    active: input.active,
  };
}

// ---- access patterns -----------------------------------------------------------------------

/**
 * product: one GetItem; undefined when there is no such SKU. Eventual (0.5 RCU) unless
 * `consistent` (what `Query.product` asks after the caller's own write, src/request/consistency.ts):
 * then ConsistentRead (1 RCU), so the screen shows the price putProduct just set. placeOrder
 * charges the price it reads itself, strongly (orderInputs), whatever a screen showed.
 */
const productGet = (sku: string, consistent = false) => getRequest({ Key: productKeys.key(checkSku(sku)), ConsistentRead: consistent });

export const product = pattern(
  {
    entity: 'Product',
    graphql: ['Query.product'],
    request: productGet,
    example: ['MUG-1'],
  },
  async function product(table: Table, sku: string, consistent = false): Promise<ProductRecord | undefined> {
    const item = await table.get(productGet(sku, consistent).input);
    return item ? productFromItem(item) : undefined;
  },
);

/** A page of the catalog, by SKU ascending, with a cursor per product. */
export interface ProductPage {
  products: ProductRecord[];
  /** One cursor per product; computed on first use. */
  readonly cursors: string[];
  hasNextPage: boolean;
  /** Whether the page starts after a cursor (the cursor's product came before it). */
  hasPreviousPage: boolean;
}

const CATALOG_SCOPE = 'catalog';

/**
 * products: the catalog by SKU ascending, one Query (`Limit first + 1`, so `hasNextPage` is
 * exact). `after` is a cursor of this list only: one of another list is BAD_USER_INPUT before
 * any request.
 */
/**
 * products' Query: `first + 1` products from the start or after a cursor's product (a cursor of
 * another list is BAD_USER_INPUT, thrown while building, before any request).
 */
const catalogQuery = (args: PageArgs) => {
  const first = checkFirst(args.first);
  const start = args.after == null ? undefined : decodeProductCursor(args.after);
  return queryRequest({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': CATALOG_PK, ':prefix': PRODUCT_PREFIX },
    Limit: first + 1,
    ...(start ? { ExclusiveStartKey: start } : {}),
  });
};

export const products = pattern(
  {
    entity: 'Product',
    graphql: ['Query.products'],
    request: catalogQuery,
    example: [{ first: 20 }],
    scale: { name: 'first', args: (first): [PageArgs] => [{ first }] },
    note: 'from a cursor (ExclusiveStartKey)',
  },
  async function products(table: Table, args: PageArgs): Promise<ProductPage> {
    const request = catalogQuery(args).input;
    const first = request.Limit! - 1;
    // A page cut short by DynamoDB's 1 MB (never at ≤ 101 small items, but possible) is continued.
    const { items } = await sendQuery(table, request);
    const taken = items.slice(0, first).map(productFromItem);
    let cursors: string[] | undefined;
    return {
      products: taken,
      hasNextPage: items.length > first,
      hasPreviousPage: request.ExclusiveStartKey !== undefined,
      get cursors() {
        return (cursors ??= taken.map((p) => encodeCursor(CATALOG_SCOPE, productKeys.key(p.sku))));
      },
    };
  },
);

function decodeProductCursor(cursor: string): Key {
  const key = decodeCursor(cursor, CATALOG_SCOPE, (k) => productEntity.parseKey(k) !== undefined);
  return { PK: key.PK as string, SK: key.SK as string };
}

/**
 * catalogPrices: the current products of `skus` (distinct), in ONE BatchGetItem; with
 * `consistent`, ConsistentRead (after the caller's own write). Returns them by SKU; a SKU with no
 * product is absent. At most 100 (the products of one `nodes` call, src/loaders/lists.ts), so one
 * call of ≤ 100 keys. (placeOrder reads its prices with its customer's profile: `orderInputs`.)
 */
/** catalogPrices' BatchGetItem: the distinct SKUs' product keys. */
const pricesGet = (skus: readonly string[], consistent = false) => batchGetRequest([...new Set(skus)].map(productKeys.key), { consistent });

export const catalogPrices = pattern(
  {
    entity: 'Product',
    graphql: ['Query.node(s)'],
    request: pricesGet,
    example: [['MUG-1', 'TEA-2']],
    scale: { name: 'SKUs', args: (n): [string[]] => [Array.from({ length: n }, (_, i) => `SKU-${i}`)] },
    note: 'the products of one node/nodes wave (≤ 100: one call)',
  },
  async function catalogPrices(table: Table, skus: readonly string[], consistent = false): Promise<Map<string, ProductRecord>> {
    const request = pricesGet(skus, consistent);
    if (request.keys.length === 0) return new Map();
    const items = await table.batchGet(request.keys, { consistent: request.consistent });
    return new Map(
      items.map((item) => {
        const found = productFromItem(item);
        return [found.sku, found];
      }),
    );
  },
);

// ---- writes --------------------------------------------------------------------------------

/**
 * putProduct: creates or replaces the product of a SKU, with its ProductPut event (the product
 * aggregate, keyed by SKU), in one transaction. A new price applies to orders placed after it;
 * orders already placed keep the price they were charged (their lines carry it). Returns what was
 * written.
 *
 * No read first: the first attempt assumes a new product (sequence 1, `attribute_not_exists`).
 * When the SKU exists, the cancellation returns its item (ALL_OLD), and the second attempt replaces
 * it conditioned on the sequence it holds. So a new SKU costs one request and a replaced one two;
 * a read first would cost two always. A concurrent putProduct of the SKU is handled the same way.
 */
export async function putProduct(table: Table, input: ProductInput, actor: EventActor): Promise<ProductRecord> {
  const checked = checkProduct(input);
  // It never reads: it writes the product as new, and a stored one comes back in the cancellation.
  return optimisticWrite(
    table,
    undefined,
    (stored) => ({ write: putProductActions(checked, stored, actor), then: checked }),
    `product ${checked.sku} is being changed concurrently; try again`,
  );
}

/**
 * putProduct's transaction: the product (new, or replacing `stored` conditioned on the sequence it
 * holds) and ProductPut.
 */
export function putProductActions(product: ProductRecord, stored: Item | undefined, actor: EventActor): TransactAction[] {
  const was = sequenceOf(stored);
  const step = sequenceStep(was);
  const sequence = step.values[':seq'] as number;
  const event = outboxEvent(
    {
      eventType: 'ProductPut',
      aggregateType: 'Product',
      aggregateId: product.sku,
      payload: { sku: product.sku, priceCents: product.priceCents, active: product.active },
    },
    sequence,
    actor,
  );
  return [
    {
      Put: {
        Item: { ...productToItem(product), [EVENT_SEQ]: sequence },
        ConditionExpression: stored ? `attribute_exists(PK) AND ${step.condition}` : 'attribute_not_exists(PK)',
        ...(stored && was > 0 ? { ExpressionAttributeValues: { ':seqWas': was } } : {}),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    eventPut(event),
  ];
}
