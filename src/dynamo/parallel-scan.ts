/**
 * A parallel Scan of the whole table (`Table.parallelScan`): `segments` workers, each paging its
 * segment to the end and handing every page to `onPage` before asking for the next (so a slow
 * consumer slows the scan: back-pressure, bounded memory). Consumed capacity is summed. A worker
 * may start from a saved key (`startKeys[segment]`, for resumable jobs; `null` marks a segment
 * already finished) and reports each page's `LastEvaluatedKey` to `onPage`, so the caller can
 * checkpoint it.
 */
import type { ScanCommandInput, ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './types';

export interface ScanPage {
  segment: number;
  items: Item[];
  /** Where this segment resumes after this page; undefined when the segment is done. */
  next: Record<string, unknown> | undefined;
}

export interface ParallelScanOptions {
  segments: number;
  onPage(page: ScanPage): Promise<void> | void;
  /** Per segment: a key to resume after, `null` for a finished segment, undefined to start. */
  startKeys?: ReadonlyArray<Record<string, unknown> | null | undefined>;
  /** Items per page (DynamoDB's own page limit of 1 MB still applies). */
  pageSize?: number;
  consistentRead?: boolean;
}

export interface ScanTotals {
  items: number;
  scanned: number;
  /** Read capacity units consumed, as reported by the engine. */
  capacity: number;
  requests: number;
}

type ScanOne = (input: Omit<ScanCommandInput, 'TableName' | 'ReturnConsumedCapacity'>) => Promise<ScanCommandOutput>;

export async function scanInParallel(scan: ScanOne, options: ParallelScanOptions): Promise<ScanTotals> {
  const totals: ScanTotals = { items: 0, scanned: 0, capacity: 0, requests: 0 };
  await Promise.all(
    Array.from({ length: options.segments }, async (_, segment) => {
      let start = options.startKeys?.[segment];
      if (start === null) return;
      do {
        const page = await scan({
          Segment: segment,
          TotalSegments: options.segments,
          ...(start ? { ExclusiveStartKey: start } : {}),
          ...(options.pageSize ? { Limit: options.pageSize } : {}),
          ...(options.consistentRead ? { ConsistentRead: true } : {}),
        });
        const items = page.Items ?? [];
        totals.requests += 1;
        totals.items += items.length;
        totals.scanned += page.ScannedCount ?? items.length;
        totals.capacity += page.ConsumedCapacity?.CapacityUnits ?? 0;
        start = page.LastEvaluatedKey;
        await options.onPage({ segment, items, next: start });
      } while (start);
    }),
  );
  return totals;
}
