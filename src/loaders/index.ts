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

export function createLoaders(table: Table, options: CollectionsOptions = {}): Loaders {
  const collections = createCollectionLoaders(table, options);
  const lists = createListLoaders(table, collections);
  // Every loader but `customers` is made on first use (a customer screen needs none of them): the
  // two objects' getters are carried over as getters, not read.
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(collections), ...Object.getOwnPropertyDescriptors(lists) },
  ) as Loaders;
}
