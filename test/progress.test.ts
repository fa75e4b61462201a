import { describe, expect, it } from 'vitest';
import { progressBar } from '../src/ops/progress';

/** Progress when stderr is not a terminal (`npm run seed | tee`, CI): plain lines, bounded in number, the last at the end. */
describe('progress without a terminal', () => {
  it('prints a line at most every interval and one at stop', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = progressBar('seed', 1000, {
      stream: { isTTY: false, write: (line) => lines.push(line) },
      lineEveryMs: 5000,
      now: () => clock,
    });
    progress.increment(100); // 0 s: no line yet
    clock = 5000;
    progress.increment(150); // 5 s: a line
    clock = 6000;
    progress.increment(250); // 6 s: too soon
    clock = 10_000;
    progress.increment(500);
    progress.stop();
    expect(lines).toEqual(['seed: 250/1000 (25%)\n', 'seed: 1000/1000 (100%)\n', 'seed: 1000/1000 (100%)\n']);
  });

  it('prints nothing when quiet', () => {
    const lines: string[] = [];
    const progress = progressBar('seed', 10, { quiet: true, stream: { isTTY: false, write: (line) => lines.push(line) } });
    progress.increment(10);
    progress.stop();
    expect(lines).toEqual([]);
  });
});
