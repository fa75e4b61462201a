/**
 * The one helper every process entry point (src/entry/cli/*.ts) runs on: usage errors, integer options,
 * and one way to end.
 *
 * - `runCli`: a command, ending with one exit status per cause, the same in every command (`EXIT`).
 *   A usage error prints the message and the usage (2); an `ExplainedFailure` (an expected
 *   condition the user can act on: a busy port, a missing table, a directory another process
 *   holds) prints its one-line message alone (3); any other failure prints its stack and exits
 *   with the command's failure code (1 unless the command gives 1 a meaning of its own).
 * - `runService`: a long-lived process (the server, the engine). SIGINT and SIGTERM are handled
 *   here and only here, once: the first calls the service's `stop` and exits 0 when it is done (1
 *   if it fails, or if it has not finished after `forceExitAfterMillis`). Later signals are
 *   ignored: Ctrl-C under `npm start` delivers SIGINT twice (from the terminal to the process
 *   group, and forwarded by npm), which must not cut the graceful stop short. A failure to start
 *   is reported and exits as `runCli`'s do.
 *
 * Both first silence the AWS SDK's Node-version notice (config.ts, `silenceSdkNodeVersionNotice`):
 * these processes are ours, on the Node version the README names.
 */
import { createServer } from 'node:net';
import { silenceSdkNodeVersionNotice } from '../boot/config';

/** The exit statuses of every command, one per cause. */
export const EXIT = {
  OK: 0,
  /** The command ran and its answer is no (the doctor found errors, a migration failed), or it crashed. */
  FAILED: 1,
  /** The command line is wrong: the message and the usage are printed. */
  USAGE: 2,
  /** The command could not run where it was pointed (`ExplainedFailure`): one line says what to do. */
  CANNOT_RUN: 3,
  /** Stopped by SIGINT before it finished (128 + 2, as shells report it). */
  INTERRUPTED: 130,
} as const;

export class UsageError extends Error {}

/**
 * An expected failure whose message says everything the user needs (what happened and what to do),
 * in one line with stable wording: printed alone, without a stack.
 */
export class ExplainedFailure extends Error {}

/** Where the table tools (seed, doctor, migrate) work, for their usage text (src/ops/connect.ts decides). */
export const TOOL_TARGET = `Target: DYNAMODB_ENDPOINT, or Amazon DynamoDB with NODE_ENV=production, or the embedded engine
on disk in DATA_DIR (default .data); TABLE_NAME (default app).`;

/** Runs `parse` (node:util `parseArgs`), turning its complaints into usage errors. */
export function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** An integer option (underscores allowed: 100_000), at least `min`; undefined when absent and optional. */
export function integerOption(
  name: string,
  value: string | undefined,
  options: { min?: number; required?: boolean } = {},
): number | undefined {
  const min = options.min ?? 0;
  if (value === undefined) {
    if (options.required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
}

/** Runs a command's `main` and exits with its code. */
export function runCli(usage: string, main: () => Promise<number>, failureCode: number = EXIT.FAILED): void {
  silenceSdkNodeVersionNotice();
  main().then(
    (code) => process.exit(code),
    (error: unknown) => fail(usage, error, failureCode),
  );
}

/** A started long-lived process: what to do on SIGINT or SIGTERM. */
export interface Service {
  stop(signal: NodeJS.Signals): Promise<void>;
  /** Exit 1 if `stop` has not finished by then (a backstop: `stop` bounds its own waits). Default 30 s. */
  forceExitAfterMillis?: number;
}

/** Starts a service with `start`, then owns its signals (see the module comment). */
export function runService(usage: string, start: () => Promise<Service>): void {
  silenceSdkNodeVersionNotice();
  // Listening from the start: a signal that arrives while the service starts stops it as soon as
  // it has started (rather than killing it half-way, as the default action would).
  let signalled: NodeJS.Signals | undefined;
  let started: Service | undefined;
  const stop = (service: Service, signal: NodeJS.Signals) => {
    service.stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('stopping failed:', error instanceof Error ? (error.stack ?? error.message) : error);
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = signal;
    const limit = started?.forceExitAfterMillis ?? DEFAULT_FORCE_EXIT_MILLIS;
    setTimeout(() => {
      console.error(`${signal}: still stopping after ${limit} ms, exiting`);
      process.exit(1);
    }, limit).unref();
    if (started) stop(started, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  start().then(
    (service) => {
      started = service;
      if (signalled) stop(service, signalled);
    },
    (error: unknown) => fail(usage, error, EXIT.FAILED),
  );
}

const DEFAULT_FORCE_EXIT_MILLIS = 30_000;

function fail(usage: string, error: unknown, failureCode: number): never {
  const usageError = error instanceof UsageError || error instanceof RangeError;
  if (usageError) console.error(`${error.message}\n\n${usage}`);
  else if (error instanceof ExplainedFailure) console.error(error.message);
  else console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(usageError ? EXIT.USAGE : error instanceof ExplainedFailure ? EXIT.CANNOT_RUN : failureCode);
}

/**
 * Refuses, before any work, to start a service on a port it cannot listen on: a busy port (or one
 * the user may not bind, or a HOST that is not an address of this machine) is an `ExplainedFailure`.
 * It binds the port and lets go at once; `listenFailure` explains the rare loser of a race after it.
 * Port 0 (any free port) is never checked.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw listenFailure(error, host, port);
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}

/** What a failed `listen` on `host:port` means for the user: an `ExplainedFailure` when it is one we know, else the error itself. */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new ExplainedFailure(
        `port ${port} is in use on ${host}: stop the other process or set PORT=<another port> (PORT=0 picks a free one)`,
      );
    case 'EACCES':
      return new ExplainedFailure(`port ${port} on ${host} needs privileges this process lacks: set PORT=<a port above 1023>`);
    case 'EADDRNOTAVAIL':
      return new ExplainedFailure(`HOST ${host} is not an address of this machine: set HOST=127.0.0.1 (or 0.0.0.0 for every interface)`);
    default:
      return error;
  }
}
