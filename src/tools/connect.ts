/**
 * How the command-line tools (seed, doctor, migrate) reach the table: `DYNAMODB_ENDPOINT` when
 * set (any DynamoDB-compatible endpoint), Amazon DynamoDB when `NODE_ENV=production`, and
 * otherwise the embedded engine on disk (`DATA_DIR`, default `.data`), so that what one command
 * writes the next one, and `DATA_DIR=.data npm start`, can read.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readConfig } from '../config';
import { createDocumentClient } from '../dynamo/client';
import { ensureTable } from '../dynamo/definition';
import { Table } from '../dynamo/table';
import { startEngine, type EmbeddedEngine } from '../engine/embedded';

export interface Connection {
  table: Table;
  doc: DynamoDBDocumentClient;
  /** Where the table lives, for humans. */
  where: string;
  close(): Promise<void>;
}

export async function connect(options: { createTable?: boolean } = {}): Promise<Connection> {
  const config = readConfig();
  let engine: EmbeddedEngine | undefined;
  let endpoint = config.endpoint;
  if (!endpoint && !config.production) {
    engine = await startEngine({ path: config.dataDir ?? '.data' });
    endpoint = engine.endpoint;
  }
  const doc = createDocumentClient({ endpoint, region: config.region });
  if (engine || options.createTable) await ensureTable(doc, config.tableName);
  return {
    table: new Table(config.tableName, doc),
    doc,
    where: engine ? `embedded engine in ${config.dataDir ?? '.data'}` : (endpoint ?? `Amazon DynamoDB (${config.region})`),
    async close() {
      doc.destroy();
      await engine?.close();
    },
  };
}
