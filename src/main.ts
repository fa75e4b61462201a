/**
 * `npm start`: the GraphQL server. With `DYNAMODB_ENDPOINT` it uses that endpoint; in production
 * without it, Amazon DynamoDB in `AWS_REGION`. Only in development without an endpoint does it
 * start the embedded engine (in memory, or on disk under `DATA_DIR`), create the table and load
 * demo data into an empty table. Production never falls back to the embedded engine.
 */
import { readConfig } from './config';
import { createDocumentClient } from './dynamo/client';
import { ensureTable } from './dynamo/definition';
import { Table } from './dynamo/table';
import { startEngine, type EmbeddedEngine } from './engine/embedded';
import { createLogger } from './logger';
import { DEMO_CUSTOMER_EMAIL, loadDemoData } from './scripts/demo-data';
import { devClaims, openDevIssuer } from './auth/dev-issuer';
import { customerByEmail } from './model';
import { startServer } from './server';
import { loadTrustedDocuments } from './documents';
import { authenticatorFor } from './auth';

const config = readConfig();
const logger = createLogger();

let engine: EmbeddedEngine | undefined;
let endpoint = config.endpoint;
if (!endpoint && !config.production) {
  engine = await startEngine({ host: '127.0.0.1', port: 0, ...(config.dataDir ? { path: config.dataDir } : {}) });
  endpoint = engine.endpoint;
  logger.info({ endpoint, dataDir: config.dataDir ?? 'memory' }, 'embedded engine started');
}

const doc = createDocumentClient({ endpoint, region: config.region });
const table = new Table(config.tableName, doc);
if (engine || config.createTable) {
  const ensured = await ensureTable(doc, config.tableName);
  if (ensured.created && engine) {
    const demo = await loadDemoData(table);
    logger.info({ customers: demo.customers.length, orders: demo.orders }, 'demo data loaded');
  }
}
if (!config.production && !config.auth.jwksUrl) await printDevTokens();

const server = await startServer({
  table,
  authenticate: await authenticatorFor(config.auth),
  production: config.production,
  explainInProduction: config.explainInProduction,
  introspectionInProduction: config.introspectionInProduction,
  corsOrigins: config.corsOrigins,
  quotas: config.quotas,
  ...(config.trustedDocuments ? { trustedDocuments: loadTrustedDocuments(config.trustedDocuments) } : {}),
  logger,
  port: config.port,
  host: config.host,
});
logger.info({ url: server.url, table: config.tableName, endpoint: endpoint ?? 'Amazon DynamoDB' }, 'server ready');
console.log(`GraphQL server ready at ${server.url}${config.production ? '' : ' (open it in a browser for Apollo Sandbox)'}`);

/**
 * Development: ready-made tokens of the local issuer, for Sandbox's Headers tab
 * (`Authorization: Bearer <token>`): staff, and the demo customer Ana when she exists.
 */
async function printDevTokens(): Promise<void> {
  const issuer = await openDevIssuer(config.auth.devKeyFile);
  const ana = await customerByEmail(table, DEMO_CUSTOMER_EMAIL).catch(() => undefined);
  const lines = [`Development tokens (24 h; send as "Authorization: Bearer <token>", more with npm run -s token):`];
  lines.push(`  staff:            ${await issuer.sign(devClaims(config.auth, { staff: true }))}`);
  if (ana) lines.push(`  customer ${ana.name} (${ana.id}): ${await issuer.sign(devClaims(config.auth, { customerId: ana.id }))}`);
  console.log(lines.join('\n'));
}

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await server.close();
  doc.destroy();
  await engine?.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
