/**
 * Serves the embedded engine alone, like DynamoDB Local:
 *
 *   npm run engine -- --port 8000 [--path DIR] [--host H]
 *
 * Without --path the data lives in memory and is gone when the process stops. SIGINT/SIGTERM close
 * the engine cleanly (admitted requests finish, LevelDB is closed) before the process exits.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../config';
import { startEngine } from '../engine/embedded';
import { parseOptions, runService, UsageError } from '../tools/cli';

const USAGE = 'usage: npm run engine -- [--port 8000] [--path DIR] [--host 127.0.0.1]';

runService(USAGE, async () => {
  const { values } = parseOptions(() =>
    parseArgs({
      options: {
        port: { type: 'string', default: '8000' },
        path: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
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

  const { engineDebug } = readConfig();
  const engine = await startEngine({
    port,
    host: values.host,
    debug: engineDebug,
    ...(values.path === undefined ? {} : { path: values.path }),
  });
  console.log(`DynamoDB-compatible engine listening on ${engine.endpoint} (${values.path ? `data in ${values.path}` : 'in memory'})`);
  return {
    async stop(signal) {
      console.log(`${signal}: closing the engine`);
      await engine.close();
    },
  };
});
