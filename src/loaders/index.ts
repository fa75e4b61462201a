/**
 * Per-request loaders, made by the context factory for each GraphQL operation and never shared
 * between operations, so a memo never outlives one consistent picture. Resolvers read only
 * through these (and the collections object they hold), never through the table.
 */
import type { Table } from '../dynamo/table';
import type { CollectionsOptions } from '../model';
import type { CollectionLoaders } from './collections';
import { RequestLoaders, type ListLoaders } from './lists';

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
  return new RequestLoaders(table, options, options.strong === true);
}
