import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  /** Adds `n` done units (and grows the total when it was an estimate that proved short). */
  increment(n?: number): void;
  setTotal(total: number): void;
  stop(): void;
}

/**
 * A progress bar on stderr for the command-line tools (seed, doctor, migrate). Silent when stderr
 * is not a terminal or `quiet` is set, so logs and CI output stay clean.
 */
export function progressBar(label: string, total: number, options: { quiet?: boolean } = {}): Progress {
  if (options.quiet || !process.stderr.isTTY) {
    return { increment() {}, setTotal() {}, stop() {} };
  }
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let value = 0;
  let max = Math.max(1, total);
  bar.start(max, 0);
  return {
    increment(n = 1) {
      value += n;
      if (value > max) bar.setTotal((max = value));
      bar.update(value);
    },
    setTotal(next) {
      bar.setTotal((max = Math.max(1, next, value)));
    },
    stop() {
      bar.stop();
    },
  };
}
