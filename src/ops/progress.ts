import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  /** Adds `n` done units (and grows the total when it was an estimate that proved short). */
  increment(n?: number): void;
  setTotal(total: number): void;
  stop(): void;
}

export interface ProgressOptions {
  quiet?: boolean;
  /** Where it goes (stderr). */
  stream?: { isTTY?: boolean; write(line: string): unknown };
  /** Not a terminal: one line at most this often (default 5 s), and one at the end. */
  lineEveryMs?: number;
  now?: () => number;
}

/** Not a terminal (piped, a CI log): plain lines, e.g. `seed: 12000/128000 (9%)`, at most one per `lineEveryMs`, and the last at stop. */
function progressLines(label: string, total: number, options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const every = options.lineEveryMs ?? 5000;
  let value = 0;
  let max = Math.max(1, total);
  let last = now();
  const line = () => stream.write(`${label}: ${value}/${max} (${Math.floor((100 * value) / max)}%)\n`);
  return {
    increment(n = 1) {
      value += n;
      if (value > max) max = value;
      if (now() - last >= every) {
        last = now();
        line();
      }
    },
    setTotal(next) {
      max = Math.max(1, next, value);
    },
    stop() {
      line();
    },
  };
}

/**
 * Progress on stderr for the command-line tools (seed, doctor, migrate): a bar on a terminal, plain
 * lines now and then when stderr is not one (piped, CI), nothing with `quiet`.
 */
export function progressBar(label: string, total: number, options: ProgressOptions = {}): Progress {
  if (options.quiet) return { increment() {}, setTotal() {}, stop() {} };
  const stream = options.stream ?? process.stderr;
  if (!stream.isTTY) return progressLines(label, total, options);
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: stream as NodeJS.WriteStream,
      hideCursor: true,
    },
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
