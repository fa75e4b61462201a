/**
 * The one paging loop: a Query followed along `LastEvaluatedKey`, bounded by `limit` items.
 * `Table.queryAll` is this; the model calls it as a function over anything with `query`, so a
 * unit test's in-memory table pages the same way the real one does.
 */
import type { QueryCommandInput, QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './types';

export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ReturnConsumedCapacity'>;

/** What `queryAll` read: its items, where it stopped, and whether the key range was exhausted. */
export interface QueryAllResult {
  items: Item[];
  /** The `LastEvaluatedKey` of the last page; undefined when the range was exhausted. */
  next: Record<string, unknown> | undefined;
  complete: boolean;
}

export interface QueryAllOptions {
  /** At most this many items in all: each page asks for what is left (its `Limit`). */
  limit?: number | undefined;
}

/**
 * Follows `LastEvaluatedKey` from `input.ExclusiveStartKey` until the key range is exhausted or
 * `limit` items are read: each page asks for what is left of `limit`, so a page DynamoDB cut short
 * at 1 MB is continued and nothing past `limit` is read. Without `limit` every page is sent with
 * the input's own `Limit` (if any) and the range is read to its end: only for ranges the data
 * model bounds (e.g. a migration's checkpoints).
 */
export async function queryAll(
  table: { query(input: QueryInput): Promise<QueryCommandOutput> },
  input: QueryInput,
  options: QueryAllOptions = {},
): Promise<QueryAllResult> {
  const { limit } = options;
  const items: Item[] = [];
  let start = input.ExclusiveStartKey;
  for (;;) {
    const remaining = limit === undefined ? undefined : limit - items.length;
    const page = await table.query({
      ...input,
      ...(remaining === undefined ? {} : { Limit: remaining }),
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
    if (!start) return { items, next: undefined, complete: true };
    if (limit !== undefined && items.length >= limit) return { items, next: start, complete: false };
  }
}
