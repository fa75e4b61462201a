/**
 * Per-request loaders, made by the context factory for each GraphQL operation and never shared
 * between operations, so a memo never outlives one consistent picture. Resolvers read only
 * through these (and the collections object they hold), never through the table.
 */
import type { Table } from '../dynamo/table';
import type { CollectionsOptions } from '../model';
import { createCollectionLoaders, type CollectionLoaders } from './collections';
import { createListLoaders, type ListLoaders } from './lists';

export * from './collections';
export * from './lists';

export type Loaders = CollectionLoaders & ListLoaders;

export interface LoadersOptions extends CollectionsOptions {
  /**
   * The exact screens (`me`, `customer`, `order`, `product`, `node`) read with ConsistentRead:
   * the request follows its principal's own write (src/request/consistency.ts). Default: eventual.
   */
  strong?: boolean;
}

export function createLoaders(table: Table, options: LoadersOptions = {}): Loaders {
  const strong = options.strong === true;
  const collections = createCollectionLoaders(table, options, strong);
  const lists = createListLoaders(table, collections, strong);
  // Every loader but `customers` is made on first use (a customer screen needs none of them): the
  // two objects' getters are carried over as getters, not read.
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(collections), ...Object.getOwnPropertyDescriptors(lists) },
  ) as Loaders;
}
