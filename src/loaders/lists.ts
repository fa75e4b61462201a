/**
 * Loaders over the list patterns (customer by email, orders by status and by SKU, the catalog, and
 * the products `node`/`nodes` ask for, batched into one BatchGetItem):
 * resolvers reach reads only through loaders, never the table. The same list asked for twice in
 * one operation (two aliases with the same arguments) is read once; each key of a batch is its
 * own read (they are different patterns' calls), all sent in one wave.
 *
 * A profile found by email is recorded in the customer collections, so the customer's fields cost
 * nothing more. Orders of a status or SKU page are not primed into `orders`: that loader promises
 * an order with its lines, and a page holds summaries or headers without them.
 */
import DataLoader from 'dataloader';
import {
  catalogPrices,
  customerByEmail,
  ordersBySku,
  ordersByStatus,
  product,
  products,
  type CustomerRecord,
  type OrderPage,
  type ProductPage,
  type ProductRecord,
} from '../model';
import { CollectionLoaders } from './collections';

export interface PageArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
}

export interface ListLoaders {
  customerByEmail: DataLoader<string, CustomerRecord | null>;
  ordersByStatus: DataLoader<{ status: string } & PageArgs, OrderPage>;
  ordersBySku: DataLoader<{ sku: string } & PageArgs, OrderPage>;
  product: DataLoader<string, ProductRecord | null>;
  /** Products by SKU for `node`/`nodes`: every SKU of one tick in ONE BatchGetItem (catalogPrices), as the request's exact screens read. */
  catalogProducts: DataLoader<string, ProductRecord | null>;
  products: DataLoader<PageArgs, ProductPage>;
}

/** SKUs of one tick: a `nodes` call holds at most 100 ids, so its products are one BatchGetItem call. */
export const CATALOG_BATCH = 100;

/** Lists of one tick: a handful at most in an admitted operation; the cap bounds one batch. */
export const LIST_BATCH = 25;

/** Each key read on its own, concurrently; a failure (a bad cursor) is that key's alone. */
function eachAlone<K, V>(read: (key: K) => Promise<V>): (keys: readonly K[]) => Promise<Array<V | Error>> {
  return (keys) =>
    Promise.all(keys.map((key) => read(key).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))));
}

const argsKey = (value: object) => JSON.stringify(value, Object.keys(value).sort());

const pageOptions = <K>(name: string, cacheKeyFn?: (key: K) => string) => ({
  name,
  maxBatchSize: LIST_BATCH,
  ...(cacheKeyFn ? { cacheKeyFn } : {}),
});

/**
 * Every loader of one request: the collection loaders and the list loaders. Each list loader is a
 * getter on the prototype, made on first use: a screen uses one or two of these, and every
 * operation would otherwise build them all. GSI-backed lists stay eventually consistent: DynamoDB
 * never reads a GSI strongly.
 */
export class RequestLoaders extends CollectionLoaders implements ListLoaders {
  #customerByEmail: ListLoaders['customerByEmail'] | undefined;
  #ordersByStatus: ListLoaders['ordersByStatus'] | undefined;
  #ordersBySku: ListLoaders['ordersBySku'] | undefined;
  #product: ListLoaders['product'] | undefined;
  #catalogProducts: ListLoaders['catalogProducts'] | undefined;
  #products: ListLoaders['products'] | undefined;

  get customerByEmail(): ListLoaders['customerByEmail'] {
    const { table, collections } = this;
    return (this.#customerByEmail ??= new DataLoader(
      eachAlone(async (email: string) => {
        const profile = (await customerByEmail(table, email)) ?? null;
        if (profile) collections.knowProfile(profile);
        return profile;
      }),
      pageOptions('customerByEmail'),
    ));
  }

  get ordersByStatus(): ListLoaders['ordersByStatus'] {
    const { table } = this;
    return (this.#ordersByStatus ??= new DataLoader(
      eachAlone(({ status, first, after }: { status: string } & PageArgs) => ordersByStatus(table, status, { first, after })),
      pageOptions('ordersByStatus', argsKey),
    ));
  }

  get ordersBySku(): ListLoaders['ordersBySku'] {
    const { table } = this;
    return (this.#ordersBySku ??= new DataLoader(
      eachAlone(({ sku, first, after }: { sku: string } & PageArgs) => ordersBySku(table, sku, { first, after })),
      pageOptions('ordersBySku', argsKey),
    ));
  }

  get product(): ListLoaders['product'] {
    const { table, strong } = this;
    return (this.#product ??= new DataLoader(
      // An exact screen: ConsistentRead after the principal's own write (one GetItem either way).
      eachAlone(async (sku: string) => (await product(table, sku, strong)) ?? null),
      pageOptions('product'),
    ));
  }

  get catalogProducts(): ListLoaders['catalogProducts'] {
    const { table, strong } = this;
    return (this.#catalogProducts ??= new DataLoader(
      async (skus: readonly string[]) => {
        const found = await catalogPrices(table, skus, strong);
        return skus.map((sku) => found.get(sku) ?? null);
      },
      { name: 'catalogProducts', maxBatchSize: CATALOG_BATCH },
    ));
  }

  get products(): ListLoaders['products'] {
    const { table } = this;
    return (this.#products ??= new DataLoader(
      eachAlone((args: PageArgs) => products(table, args)),
      pageOptions('products', argsKey),
    ));
  }
}
