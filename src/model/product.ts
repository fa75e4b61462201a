/**
 * Product: the catalog placeOrder takes its prices from, in the same table.
 *
 * | pattern       | index | key condition                                                  | order           |
 * | ------------- | ----- | -------------------------------------------------------------- | --------------- |
 * | product       | table | PK = CATALOG, SK = PRODUCT#<sku> (GetItem)                     | —               |
 * | products      | table | PK = CATALOG, begins_with(SK, PRODUCT#), from a cursor         | by SKU, ascending |
 * | catalogPrices | table | BatchGetItem of PK = CATALOG, SK = PRODUCT#<sku>, consistent   | —               |
 *
 * Keys: PK = CATALOG, SK = PRODUCT#<sku>. Every product lives in ONE item collection:
 * - GSI1's projection is INCLUDE and cannot change; it lacks `priceCents` and `active` (and a
 *   product's `sku`), so a catalog listed from the index would need a second read of every page
 *   from the table. A base-table collection lists the catalog in one Query, by SKU.
 * - One partition key is not a hot-partition trap here: the table has no LSI, so DynamoDB may split
 *   a busy collection by sort-key ranges across partitions (an LSI would pin the collection to one
 *   partition of at most 10 GB). Reads of single products and the catalogPrices BatchGetItem are
 *   by full key, so they spread over whatever ranges the collection has been split into.
 * A product is never deleted, only made inactive: orders keep naming its SKU.
 */
import type { Item, Key, Table } from '../dynamo/table';
import { badInput } from './errors';
import { checkText, SEP, str } from './keys';
import { checkFirst, decodeCursor, encodeCursor } from './cursor';
import { guardItem } from './guards';
import { checkSku } from './sku-index';
import { SKU_MAX } from './order';
import { declareEntity, declarePatterns, pkOf, skOf } from './declare';

export const CATALOG_PK = 'CATALOG';
export const PRODUCT_PREFIX = `PRODUCT${SEP}`;
export const PRODUCT_NAME_MAX = 200;
export const PRICE_MAX_CENTS = 100_000_000;

export const productKeys = {
  key: (sku: string): Key => ({ PK: CATALOG_PK, SK: `${PRODUCT_PREFIX}${sku}` }),
  /** The SKU of a product sort key, or undefined when the key is not a product's. */
  skuOf: (sk: string): string | undefined => (sk.startsWith(PRODUCT_PREFIX) ? sk.slice(PRODUCT_PREFIX.length) : undefined),
};

export const productEntity = declareEntity({
  name: 'Product',
  type: 'PRODUCT',
  graphql: 'Product',
  keys: { PK: 'CATALOG', SK: 'PRODUCT#<sku>' },
  matches: (item) => pkOf(item) === CATALOG_PK && skOf(item).startsWith(PRODUCT_PREFIX),
  requiresGsi1: false,
  expires: false,
});

export const productPatterns = declarePatterns(
  { name: 'product', entity: 'Product', graphql: ['Query.product'], index: 'table', operation: 'GetItem', keyCondition: 'PK = CATALOG, SK = PRODUCT#<sku>', order: '—', bound: '1 item' },
  { name: 'products', entity: 'Product', graphql: ['Query.products'], index: 'table', operation: 'Query', keyCondition: 'PK = CATALOG, begins_with(SK, PRODUCT#), from a cursor', order: 'by sort key', bound: 'Limit first + 1' },
  { name: 'catalogPrices', entity: 'Product', graphql: ['Mutation.placeOrder'], index: 'table', operation: 'BatchGetItem', keyCondition: 'PK = CATALOG, SK = PRODUCT#<sku>, the distinct SKUs of one order, ConsistentRead; wave 1 of 2, then the transaction', order: '—', bound: '≤ 96 keys: one call' },
);

// ---- codec ---------------------------------------------------------------------------------

export function productFromItem(item: Item) {
  const { priceCents, active } = item;
  if (typeof priceCents !== 'number' || typeof active !== 'boolean') throw new Error(`product ${String(item.SK)} lacks priceCents or active`);
  return { sku: str(item, 'sku'), name: str(item, 'name'), priceCents, active };
}
/** A product as the model hands it out; GraphQL resolvers receive this type. */
export type ProductRecord = ReturnType<typeof productFromItem>;

export function productToItem(product: ProductRecord): Item {
  return { ...productKeys.key(product.sku), type: 'PRODUCT', ...product };
}

// ---- validation ----------------------------------------------------------------------------

export interface ProductInput { sku: string; name: string; priceCents: number; active: boolean }

/** A price in cents: an integer from 0 to 100,000,000 (one million in major units). */
export function checkPriceCents(value: number, field = 'input.priceCents'): number {
  if (!Number.isInteger(value) || value < 0 || value > PRICE_MAX_CENTS) throw badInput(`${field} must be an integer from 0 to ${PRICE_MAX_CENTS}`, field);
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

/** product: one GetItem; undefined when there is no such SKU. */
export async function product(table: Table, sku: string): Promise<ProductRecord | undefined> {
  const item = await table.get({ Key: productKeys.key(checkSku(sku)) });
  return item ? productFromItem(item) : undefined;
}

/** A page of the catalog, by SKU ascending, with a cursor per product. */
export interface ProductPage {
  products: ProductRecord[];
  /** One cursor per product; computed on first use. */
  readonly cursors: string[];
  hasNextPage: boolean;
}

const CATALOG_SCOPE = 'catalog';

/**
 * products: the catalog by SKU ascending, one Query (`Limit first + 1`, so `hasNextPage` is
 * exact). `after` is a cursor of this list only: one of another list is BAD_USER_INPUT before
 * any request.
 */
export async function products(table: Table, args: { first?: number | null | undefined; after?: string | null | undefined }): Promise<ProductPage> {
  const first = checkFirst(args.first);
  let start: Record<string, unknown> | undefined = args.after == null ? undefined : decodeProductCursor(args.after);
  const items: Item[] = [];
  do {
    const page = await table.query({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': CATALOG_PK, ':prefix': PRODUCT_PREFIX },
      Limit: first + 1 - items.length,
      ExclusiveStartKey: start,
    });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
    // A page cut short by DynamoDB's 1 MB (never at ≤ 101 small items, but possible) is continued.
  } while (start && items.length < first + 1);
  const taken = items.slice(0, first).map(productFromItem);
  let cursors: string[] | undefined;
  return {
    products: taken,
    hasNextPage: items.length > first,
    get cursors() {
      return (cursors ??= taken.map((p) => encodeCursor(CATALOG_SCOPE, productKeys.key(p.sku))));
    },
  };
}

function decodeProductCursor(cursor: string): Key {
  const key = decodeCursor(cursor, CATALOG_SCOPE, (k) => {
    const sku = productKeys.skuOf(k.SK ?? '');
    return Object.keys(k).length === 2 && k.PK === CATALOG_PK && sku !== undefined && sku.length > 0 && sku.length <= SKU_MAX && !sku.includes(SEP);
  });
  return { PK: key.PK as string, SK: key.SK as string };
}

/**
 * catalogPrices: the current products of `skus` (distinct), in ONE BatchGetItem with
 * ConsistentRead (a price just changed is the price read). Returns them by SKU; a SKU with no
 * product is absent. At most 96 SKUs (an order's lines), so one call of ≤ 100 keys.
 */
export async function catalogPrices(table: Table, skus: readonly string[]): Promise<Map<string, ProductRecord>> {
  const distinct = [...new Set(skus)];
  if (distinct.length === 0) return new Map();
  const items = await table.batchGet(distinct.map(productKeys.key), { consistent: true });
  return new Map(items.map((item) => {
    const found = productFromItem(item);
    return [found.sku, found];
  }));
}

// ---- writes --------------------------------------------------------------------------------

/**
 * putProduct: creates or replaces the product of a SKU, one PutItem. A new price applies to
 * orders placed after it; orders already placed keep the price they were charged (their lines
 * carry it). Returns what was written.
 */
export async function putProduct(table: Table, input: ProductInput): Promise<ProductRecord> {
  const checked = checkProduct(input);
  await table.put({ Item: guardItem(productToItem(checked)) });
  return checked;
}
