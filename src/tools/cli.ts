/**
 * What the command-line tools (seed, doctor) share: usage errors, integer options, and one way
 * to end: a usage error prints the message and the usage and exits 2; any other failure prints
 * its stack and exits with the tool's failure code.
 */
export class UsageError extends Error {}

/** Runs `parse` (node:util `parseArgs`), turning its complaints into usage errors. */
export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** An integer option (underscores allowed: 100_000), at least `min`; undefined when absent and optional. */
export function integerOption(name: string, value: string | undefined, options: { min?: number; required?: boolean } = {}): number | undefined {
  const min = options.min ?? 0;
  if (value === undefined) {
    if (options.required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
}

/** Runs a tool's `main` and exits with its code. */
export function runCli(usage: string, main: () => Promise<number>, failureCode: number): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const usageError = error instanceof UsageError || error instanceof RangeError;
      console.error(usageError ? `${(error as Error).message}\n\n${usage}` : error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(usageError ? 2 : failureCode);
    },
  );
}
