/**
 * How the command-line tools (seed, doctor, migrate) reach the table, through the one bootstrap
 * (src/bootstrap.ts): `DYNAMODB_ENDPOINT` when set (any DynamoDB-compatible endpoint), Amazon
 * DynamoDB when `NODE_ENV=production`, and otherwise the embedded engine on disk (`DATA_DIR`,
 * default `.data`), so that what one command writes the next one, and `DATA_DIR=.data npm start`,
 * can read.
 */
import { bootstrap, type Runtime } from '../bootstrap';
import { readConfig } from '../config';
import { startEngine } from '../engine/embedded';

/** The table, its client, where it lives (for humans) and how to let go of it. */
export type Connection = Pick<Runtime, 'table' | 'doc' | 'where' | 'close'>;

export async function connect(options: { createTable?: boolean } = {}): Promise<Connection> {
  const config = readConfig();
  return bootstrap(config, {
    embedded: { start: startEngine, path: config.dataDir ?? '.data' },
    createTable: options.createTable === true,
  });
}
