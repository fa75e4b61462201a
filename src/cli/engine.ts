/**
 * Serves the embedded engine alone, like DynamoDB Local:
 *
 *   npm run engine -- --port 8000 [--path DIR] [--host H] [--sync] [--ttl-sweep-seconds N]
 *
 * Without --path the data lives in memory and is gone when the process stops. With --sync (and
 * --path) every commit is fsynced before it is acknowledged. SIGINT/SIGTERM close
 * the engine cleanly (admitted requests finish, LevelDB is closed) before the process exits.
 * Expired items (TTL) are deleted every 60 s by default: often enough to see "an expired item is
 * gone" while developing; Amazon promises only "within days", so nothing may rely on the moment.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../config';
import { startEngine } from '../engine/embedded';
import { parseOptions, runService, UsageError } from '../tools/cli';

const USAGE = [
  'usage: npm run engine -- [--port 8000] [--path DIR] [--host 127.0.0.1] [--sync] [--ttl-sweep-seconds 60]',
  '  --port N     port to listen on (0: any free port); default 8000',
  '  --path DIR   LevelDB directory, kept across restarts; in memory when absent',
  '  --host H     interface to listen on; default 127.0.0.1',
  '  --sync       fsync each commit before answering (LevelDB sync writes): an acknowledged write',
  '               survives a machine crash, not only a process crash; slower. Needs --path.',
  '  --ttl-sweep-seconds N',
  '               delete expired items every N seconds (0: never); default 60. Expired: on a table',
  '               with TTL enabled, the TTL attribute is a Number of epoch seconds in the past.',
  '               Amazon deletes them within days: never rely on the moment.',
].join('\n');

runService(USAGE, async () => {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        port: { type: 'string', default: '8000' },
        path: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        sync: { type: 'boolean', default: false },
        'ttl-sweep-seconds': { type: 'string', default: '60' },
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
  if (values.sync && values.path === undefined) throw new UsageError('--sync needs --path (an in-memory engine has nothing to fsync)');

  const { engineDebug } = readConfig();
  const engine = await startEngine({
    port,
    host: values.host,
    debug: engineDebug,
    ...(values.path === undefined ? {} : { path: values.path }),
    sync: values.sync,
    ttlSweepSeconds,
  });
  console.log(
    `DynamoDB-compatible engine listening on ${engine.endpoint} (${values.path ? `data in ${values.path}${values.sync ? ', fsync on each commit' : ''}` : 'in memory'})`,
  );
  return {
    async stop(signal) {
      console.log(`${signal}: closing the engine`);
      await engine.close();
    },
  };
});
