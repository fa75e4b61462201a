/** The parallel Scan lives in the I/O seam (src/dynamo/parallel-scan.ts, `Table.parallelScan`). */
import type { Table } from '../dynamo/table';
import type { ParallelScanOptions, ScanTotals } from '../dynamo/parallel-scan';

export type { ParallelScanOptions, ScanPage, ScanTotals } from '../dynamo/parallel-scan';

export function parallelScan(table: Table, options: ParallelScanOptions): Promise<ScanTotals> {
  return table.parallelScan(options);
}
