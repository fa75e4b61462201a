/**
 * Loaders over item collections. DataLoader only batches here: every `customers.load` of one tick
 * becomes one call of `CustomerCollections.load` (src/model/customer-collection/session.ts), the
 * per-request object that owns what is known of each customer's collection, merges needs, plans
 * and sends one wave; `orders.load(orderId)` reads an order's collection (header and lines), the
 * orders of one tick together. Neither caches in DataLoader: the collections object is the memo
 * of customers, and an order is primed explicitly.
 */
import DataLoader from 'dataloader';
import type { Table } from '../dynamo/table';
import {
  CustomerCollections,
  orderDetail,
  type CollectionRequest,
  type CollectionsOptions,
  type CustomerRecord,
  type CustomerView,
  type OrderRecord,
} from '../model';

export type { CollectionRequest, CustomerView } from '../model';

/**
 * The most requests one batch holds. A customers batch is one wave whatever its size (the
 * collections object plans them together); this caps the work one batch function does, far above
 * what an admitted operation asks (src/admission/cost.ts).
 */
export const CUSTOMER_BATCH = 1000;
/** Order details of one tick: one Query each, all in one wave. */
export const ORDER_BATCH = 100;

/**
 * The collection loaders of one request. A class, so that one request costs one object and the
 * customers loader: the order loaders are getters on the prototype, made on first use (a customer
 * screen never reads an order's detail).
 */
export class CollectionLoaders {
  /** The customer collections of this request (its state is private to it). */
  readonly collections: CustomerCollections;
  readonly customers: DataLoader<CollectionRequest, CustomerView | null>;
  /** Whether this request's exact screens read with ConsistentRead (`order(id)`, `customer(id)`, ...). */
  readonly strong: boolean;
  protected readonly table: Table;
  #orders: DataLoader<string, OrderRecord | null> | undefined;
  #ordersStrongly: DataLoader<string, OrderRecord | null> | undefined;

  constructor(table: Table, options: CollectionsOptions = {}, strong = false) {
    this.table = table;
    this.strong = strong;
    const collections = (this.collections = new CustomerCollections(table, options));
    this.customers = new DataLoader<CollectionRequest, CustomerView | null>((requests) => collections.load(requests), {
      name: 'customers',
      cache: false,
      maxBatchSize: CUSTOMER_BATCH,
    });
  }

  get orders(): DataLoader<string, OrderRecord | null> {
    return (this.#orders ??= orderLoader(this.table, 'orders', false));
  }

  /** Order details read with ConsistentRead: an order proven to exist that `orders` missed, an event's order. */
  get ordersStrongly(): DataLoader<string, OrderRecord | null> {
    return (this.#ordersStrongly ??= orderLoader(this.table, 'ordersStrongly', true));
  }
}

function orderLoader(table: Table, name: string, strong: boolean): DataLoader<string, OrderRecord | null> {
  return new DataLoader<string, OrderRecord | null>(
    (orderIds) => Promise.all(orderIds.map(async (orderId) => (await orderDetail(table, orderId, strong)) ?? null)),
    { name, maxBatchSize: ORDER_BATCH },
  );
}

/**
 * An order an invariant proves exists (a summary or index entry names it): read eventually, and
 * only when that finds nothing (a replica behind the write) once more with ConsistentRead.
 */
export async function provenOrder(loaders: CollectionLoaders, orderId: string): Promise<OrderRecord | null> {
  return (await loaders.orders.load(orderId)) ?? loaders.ordersStrongly.load(orderId);
}

/** An order an exact screen asks for (`order(id)`, `node`): read as the request's screens read. */
export function exactOrder(loaders: CollectionLoaders, orderId: string): Promise<OrderRecord | null> {
  return (loaders.strong ? loaders.ordersStrongly : loaders.orders).load(orderId);
}

/** A customer an exact screen asks for (`me`, `customer(id)`, `node`): read as the request's screens read. */
export function exactCustomer(
  loaders: CollectionLoaders,
  request: Omit<CollectionRequest, 'exact' | 'proven'>,
): CustomerView | null | Promise<CustomerView | null> {
  return customerView(loaders, { ...request, exact: loaders.strong });
}

/**
 * What one field wants of a customer: answered from what the request already knows when it can
 * (no batch, no promise), else loaded in one batch with its peers.
 */
export function customerView(loaders: CollectionLoaders, request: CollectionRequest): CustomerView | null | Promise<CustomerView | null> {
  const known = loaders.collections.known(request.customerId, request.need, request.proven === true || request.exact === true);
  return known !== undefined ? known : loaders.customers.load(request);
}

/**
 * Records what a mutation just wrote, so its response fields are answered without a read: a new
 * customer has no addresses and no orders.
 */
export function primeNewCustomer(loaders: CollectionLoaders, customer: CustomerRecord): void {
  loaders.collections.knowNewCustomer(customer);
}

/** Records a profile just read or written (existence included). */
export function primeProfile(loaders: CollectionLoaders, customer: CustomerRecord): void {
  loaders.collections.knowProfile(customer);
}

/** Records an order whose header and lines are known (just written or read whole). */
export function primeOrder(loaders: CollectionLoaders, order: OrderRecord): void {
  loaders.orders.clear(order.id).prime(order.id, order);
}
