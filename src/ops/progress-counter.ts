import { SingleBar } from 'cli-progress';
import type { Progress } from './progress';

/**
 * A running count on stderr, for work whose total is not known in advance (a Scan of a table
 * whose DescribeTable `ItemCount` is missing or stale: the embedded engine reports 0, Amazon
 * refreshes it about every six hours). Same contract and same silence rules as `progressBar`.
 */
export function progressCounter(label: string, unit: string, options: { quiet?: boolean } = {}): Progress {
  if (options.quiet || !process.stderr.isTTY) return { increment() {}, setTotal() {}, stop() {} };
  const bar = new SingleBar({
    format: `${label} {value} ${unit} | {duration_formatted}`,
    stream: process.stderr,
    hideCursor: true,
    formatValue: (value) => value.toLocaleString('en-US'),
  });
  let value = 0;
  bar.start(Number.MAX_SAFE_INTEGER, 0);
  return {
    increment(n = 1) {
      bar.update((value += n));
    },
    setTotal() {},
    stop() {
      bar.stop();
    },
  };
}
