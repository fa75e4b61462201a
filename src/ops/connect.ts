/**
 * How the command-line tools (seed, doctor, migrate) reach the table, through the one bootstrap
 * (src/boot/bootstrap.ts): `DYNAMODB_ENDPOINT` when set (any DynamoDB-compatible endpoint), Amazon
 * DynamoDB when `NODE_ENV=production`, and otherwise the embedded engine on disk (`DATA_DIR`,
 * default `.data`), so that what one command writes the next one, and `DATA_DIR=.data npm start`,
 * can read.
 *
 * Expected reasons not to get there (a missing table, a `DATA_DIR` another process holds) become
 * one-line `ExplainedFailure`s here (`explainConnectFailure`), for the tools and `npm start` alike.
 */
import { bootstrap, MissingTableError, type Runtime } from '../boot/bootstrap';
import { readConfig } from '../boot/config';
import { DirectoryHeldError, startEngine } from '@single-table/engine';
import { ExplainedFailure } from './cli';

/** The table, its client, where it lives (for humans) and how to let go of it. */
export type Connection = Pick<Runtime, 'table' | 'doc' | 'where' | 'close'>;

/** Without `createTable`, a missing table is an `ExplainedFailure` naming `npm run table:create`. */
export async function connect(options: { createTable?: boolean } = {}): Promise<Connection> {
  const config = readConfig();
  try {
    return await bootstrap(config, {
      embedded: { start: startEngine, path: config.dataDir ?? '.data' },
      createTable: options.createTable === true,
      requireTable: true,
    });
  } catch (error) {
    throw explainConnectFailure(error);
  }
}

/**
 * The one-line explanation of an expected failure to reach the table, or the error itself. A held
 * `DATA_DIR` is usually a running `npm start` (LevelDB lets one process open a directory): the
 * command can use that server's engine instead, whose endpoint the server logs at start.
 */
export function explainConnectFailure(error: unknown): unknown {
  if (error instanceof MissingTableError) return new ExplainedFailure(error.message);
  if (error instanceof DirectoryHeldError) {
    return new ExplainedFailure(
      `DATA_DIR ${error.path} is held by another process (LevelDB's lock; a running npm start?): stop it, or point this command at its engine with DYNAMODB_ENDPOINT=<the endpoint it logged at "embedded engine started">`,
    );
  }
  return error;
}
