/**
 * Serves the embedded engine alone, like DynamoDB Local:
 *
 *   npm run engine -- --port 8000 [--path DIR] [--host H]
 *
 * Without --path the data lives in memory and is gone when the process stops. SIGINT/SIGTERM close
 * the engine cleanly (admitted requests finish, LevelDB is closed) before the process exits.
 */
import { parseArgs } from 'node:util';
import { startEngine } from './embedded';

const USAGE = 'usage: npm run engine -- [--port 8000] [--path DIR] [--host 127.0.0.1]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8000' },
      path: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535\n${USAGE}`);

  const engine = await startEngine({ port, host: values.host, ...(values.path === undefined ? {} : { path: values.path }) });
  console.log(`DynamoDB-compatible engine listening on ${engine.endpoint} (${values.path ? `data in ${values.path}` : 'in memory'})`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing the engine`);
    engine.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('closing the engine failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
