/**
 * The engine's command line: serves the embedded engine alone, like DynamoDB Local, faithful to
 * DynamoDB by default (profiles.ts): GSI lag, eventual and read-committed reads, transaction conflicts.
 *
 *   npm run engine -- --port 8000 [--path DIR] [--host H] [--sync] [--ttl-sweep-seconds N] [--strong]
 *                     [--gsi-lag-ms N] [--gsi-lag-seed S] [--conflicts|--no-conflicts] [--conflict-chance P] [--conflict-seed S]
 *                     [--consistency strong|eventual] [--stale-read-ms N] [--commit-span-ms N] [--stale-read-seed S]
 *
 * (`npm run engine` at the repository's root, `npm start -w @single-table/engine`, or
 * `node --import tsx src/main.ts` here.) Without --path the data lives in memory and is gone when
 * the process stops. With --sync (and --path) every commit is fsynced before it is acknowledged.
 * SIGINT/SIGTERM close the engine cleanly (admitted requests finish, LevelDB is closed) before the
 * process exits; later signals are ignored (Ctrl-C under npm delivers SIGINT twice). Expired items
 * (TTL) are deleted every 60 s by default: often enough to see "an expired item is gone" while
 * developing; Amazon promises only "within days", so nothing may rely on the moment.
 *
 * A usage error prints the message and the usage and exits 2; a directory another process holds
 * prints one line and exits 1. The process entry point is src/main.ts (or whoever calls
 * `runEngineCli`, e.g. the product's src/entry/cli/engine.ts), which says where `debug` comes from.
 */
import { parseArgs } from 'node:util';
import { DirectoryHeldError, startEngine } from './embedded';
import { FAITHFUL, STRONG } from './profiles';

class UsageError extends Error {}

/** An expected failure whose one-line message says everything: printed alone, without a stack. */
class ExplainedFailure extends Error {}

/** What the caller decides for the engine process. */
export interface EngineCliSettings {
  /** The engine prints the stack of every internal failure (the product's `ENGINE_DEBUG`). */
  debug?: boolean;
}

const USAGE = [
  'usage: npm run engine -- [--port 8000] [--path DIR] [--host 127.0.0.1] [--sync] [--ttl-sweep-seconds 60] [--strong]',
  `                          [--gsi-lag-ms ${FAITHFUL.gsiLagMs}] [--gsi-lag-seed 1] [--conflicts | --no-conflicts] [--conflict-chance 0] [--conflict-seed 1]`,
  `                          [--consistency ${FAITHFUL.consistency}] [--stale-read-ms ${FAITHFUL.staleReadMs}] [--stale-read-chance ${FAITHFUL.staleReadChance?.toFixed(2)}] [--commit-span-ms ${FAITHFUL.commitSpanMs}] [--stale-read-seed 1]`,
  'Faithful to Amazon DynamoDB by default, never more forgiving: every behaviour below is on. --strong',
  'turns them all off (each write visible at once to every read, no conflicts) for a deterministic engine;',
  'a flag given with --strong still applies.',
  '  --port N     port to listen on (0: any free port); default 8000',
  '  --path DIR   LevelDB directory, kept across restarts; in memory when absent',
  '  --host H     interface to listen on; default 127.0.0.1',
  '  --sync       fsync each commit before answering (LevelDB sync writes): an acknowledged write',
  '               survives a machine crash, not only a process crash; slower. Needs --path.',
  '  --ttl-sweep-seconds N',
  '               delete expired items every N seconds (0: never); default 60. Expired: on a table',
  '               with TTL enabled, the TTL attribute is a Number of epoch seconds in the past.',
  '               Amazon deletes them within days: never rely on the moment.',
  '  --gsi-lag-ms N',
  '               global secondary index lag, as on DynamoDB: each GSI write (an index entry put or',
  '               deleted) shows in Query/Scan on the index after a random 0..N ms, while the table',
  `               has the write at once. Default ${FAITHFUL.gsiLagMs}; 0: indexes updated with the item.`,
  '  --gsi-lag-seed S',
  '               seed of those random delays (an integer); default 1.',
  '  --conflicts, --no-conflicts',
  '               transaction conflicts as on DynamoDB, between requests in flight at once: a',
  '               TransactWriteItems with an item another in-flight one holds is cancelled',
  '               (TransactionConflict reason); a PutItem/UpdateItem/DeleteItem on such an item',
  '               fails with TransactionConflictException; a TransactGetItems on an item being',
  '               written is cancelled. On by default.',
  '  --conflict-chance P',
  '               also cancel each TransactWriteItems with a forced TransactionConflict with',
  "               probability P (0..1, seeded), to exercise clients' retries; implies --conflicts.",
  '  --conflict-seed S',
  '               seed of that draw (an integer); default 1.',
  '  --consistency strong|eventual',
  '               eventual: a GetItem/BatchGetItem/Query/Scan without ConsistentRead may return an',
  '               item as it was before a write (nothing, if just created; the old item, if just',
  '               deleted) for a random 0..--stale-read-ms after it, as a DynamoDB replica may.',
  `               Default ${FAITHFUL.consistency}.`,
  '  --stale-read-ms N',
  `               upper bound of that window; default ${FAITHFUL.staleReadMs}.`,
  '  --stale-read-chance P',
  '               probability (0..1, seeded) that a read inside that window is stale; default',
  `               ${FAITHFUL.staleReadChance?.toFixed(2)} (a write acknowledged by two of three replicas, read from the third); 1:`,
  '               every read in the window is stale.',
  '  --commit-span-ms N',
  '               read-committed transactions, as on DynamoDB: each item of a TransactWriteItems',
  '               turns visible to BatchGetItem/Query/Scan (even with ConsistentRead) at a random',
  '               0..N ms, and the transaction answers after the last; GetItem and TransactGetItems',
  `               see all of it at once. Default ${FAITHFUL.commitSpanMs}; 0: all at once.`,
  '  --stale-read-seed S',
  '               seed of the stale windows and commit spans (an integer); default 1.',
].join('\n');

/** Parses `args`, starts the engine, and owns the process's signals and exit code from then on. */
export function runEngineCli(args: string[], settings: EngineCliSettings = {}): void {
  runService(() => serve(args, settings));
}

async function serve(args: string[], settings: EngineCliSettings): Promise<() => Promise<void>> {
  const { values } = parseOptions(() =>
    parseArgs({
      args,
      options: {
        port: { type: 'string', default: '8000' },
        path: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        sync: { type: 'boolean', default: false },
        'ttl-sweep-seconds': { type: 'string', default: '60' },
        strong: { type: 'boolean', default: false },
        'gsi-lag-ms': { type: 'string' },
        'gsi-lag-seed': { type: 'string', default: '1' },
        conflicts: { type: 'boolean' },
        'no-conflicts': { type: 'boolean', default: false },
        'conflict-chance': { type: 'string', default: '0' },
        'conflict-seed': { type: 'string', default: '1' },
        consistency: { type: 'string' },
        'stale-read-ms': { type: 'string' },
        'stale-read-chance': { type: 'string' },
        'commit-span-ms': { type: 'string' },
        'stale-read-seed': { type: 'string', default: '1' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be an integer 0..65535');
  const ttlSweepSeconds = Number(values['ttl-sweep-seconds']);
  if (!Number.isFinite(ttlSweepSeconds) || ttlSweepSeconds < 0) throw new UsageError('--ttl-sweep-seconds must be a number ≥ 0');
  const base = values.strong ? STRONG : FAITHFUL;
  const gsiLagMs = Number(values['gsi-lag-ms'] ?? base.gsiLagMs);
  if (!Number.isFinite(gsiLagMs) || gsiLagMs < 0) throw new UsageError('--gsi-lag-ms must be a number ≥ 0');
  const gsiLagSeed = Number(values['gsi-lag-seed']);
  if (!Number.isInteger(gsiLagSeed)) throw new UsageError('--gsi-lag-seed must be an integer');
  const conflictChance = Number(values['conflict-chance']);
  if (!(conflictChance >= 0 && conflictChance <= 1)) throw new UsageError('--conflict-chance must be a number in 0..1');
  const conflictSeed = Number(values['conflict-seed']);
  if (!Number.isInteger(conflictSeed)) throw new UsageError('--conflict-seed must be an integer');
  if (values.conflicts && values['no-conflicts']) throw new UsageError('--conflicts and --no-conflicts contradict each other');
  const conflicts = values['no-conflicts'] ? false : (values.conflicts ?? base.conflicts ?? false);
  const consistency = values.consistency ?? base.consistency;
  if (consistency !== 'strong' && consistency !== 'eventual') throw new UsageError('--consistency must be strong or eventual');
  const staleReadMs = Number(values['stale-read-ms'] ?? FAITHFUL.staleReadMs);
  if (!Number.isFinite(staleReadMs) || staleReadMs < 0) throw new UsageError('--stale-read-ms must be a number ≥ 0');
  const staleReadChance = Number(values['stale-read-chance'] ?? FAITHFUL.staleReadChance);
  if (!(staleReadChance >= 0 && staleReadChance <= 1)) throw new UsageError('--stale-read-chance must be a number in 0..1');
  const commitSpanMs = Number(values['commit-span-ms'] ?? base.commitSpanMs);
  if (!Number.isFinite(commitSpanMs) || commitSpanMs < 0) throw new UsageError('--commit-span-ms must be a number ≥ 0');
  const staleReadSeed = Number(values['stale-read-seed']);
  if (!Number.isInteger(staleReadSeed)) throw new UsageError('--stale-read-seed must be an integer');
  if (values.sync && values.path === undefined) throw new UsageError('--sync needs --path (an in-memory engine has nothing to fsync)');

  const engine = await startEngine({
    port,
    host: values.host,
    debug: settings.debug ?? false,
    ...(values.path === undefined ? {} : { path: values.path }),
    sync: values.sync,
    ttlSweepSeconds,
    gsiLagMs,
    gsiLagSeed,
    conflicts,
    conflictChance,
    conflictSeed,
    consistency,
    staleReadMs,
    staleReadChance,
    commitSpanMs,
    staleReadSeed,
  }).catch((error: unknown) => {
    if (!(error instanceof DirectoryHeldError)) throw error;
    throw new ExplainedFailure(`--path ${error.path} is held by another process (LevelDB's lock): stop it, or give another directory`);
  });
  const behaviours = [
    gsiLagMs ? `GSI lag up to ${gsiLagMs} ms` : 'GSIs updated with the item',
    consistency === 'eventual' ? `eventually consistent reads (stale up to ${staleReadMs} ms)` : 'strongly consistent reads',
    commitSpanMs ? `read-committed transactions (${commitSpanMs} ms span)` : 'transactions visible at once',
    conflicts || conflictChance ? `transaction conflicts${conflictChance ? ` (forced with p=${conflictChance})` : ''}` : 'no conflicts',
  ];
  const storage = values.path ? `data in ${values.path}${values.sync ? ', fsync on each commit' : ''}` : 'in memory';
  console.log(`DynamoDB-compatible engine listening on ${engine.endpoint} (${storage}; ${behaviours.join(', ')})`);
  return async () => {
    await engine.close();
  };
}

/** Runs `parse` (node:util `parseArgs`), turning its complaints into usage errors. */
function parseOptions<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A backstop: exit 1 if closing has not finished by then (the engine bounds its own waits). */
const FORCE_EXIT_MILLIS = 30_000;

/**
 * Starts the engine with `start`, listening for SIGINT and SIGTERM from the first moment: a signal
 * that arrives while it starts stops it as soon as it has started. The first signal closes it and
 * exits 0 (1 if closing fails or outlasts FORCE_EXIT_MILLIS); later ones are ignored.
 */
function runService(start: () => Promise<() => Promise<void>>): void {
  let signalled: NodeJS.Signals | undefined;
  let close: (() => Promise<void>) | undefined;
  const stop = (signal: NodeJS.Signals, closeEngine: () => Promise<void>) => {
    console.log(`${signal}: closing the engine`);
    closeEngine().then(
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
    setTimeout(() => {
      console.error(`${signal}: still stopping after ${FORCE_EXIT_MILLIS} ms, exiting`);
      process.exit(1);
    }, FORCE_EXIT_MILLIS).unref();
    if (close) stop(signal, close);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  start().then(
    (started) => {
      close = started;
      if (signalled) stop(signalled, started);
    },
    (error: unknown) => fail(error),
  );
}

function fail(error: unknown): never {
  const usageError = error instanceof UsageError || error instanceof RangeError;
  if (usageError) console.error(`${error.message}\n\n${USAGE}`);
  else if (error instanceof ExplainedFailure) console.error(error.message);
  else console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(usageError ? 2 : 1);
}
