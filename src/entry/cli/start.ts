/**
 * `npm start`: the GraphQL server. With `DYNAMODB_ENDPOINT` it uses that endpoint; in production
 * without it, Amazon DynamoDB in `AWS_REGION`. Only in development without an endpoint does it
 * start the embedded engine (in memory, or on disk under `DATA_DIR`), create the table and load
 * demo data into an empty table. Production never falls back to the embedded engine.
 *
 * Before any of that it checks that it can listen on `HOST`:`PORT`; and without the embedded engine
 * or `CREATE_TABLE=1` that the table exists. Either failure, and a `DATA_DIR` another process
 * holds, ends the process with one line saying what to do (exit 3, `EXIT.CANNOT_RUN`), not a stack.
 *
 * In development (or with `RELAY=on`) it also runs the outbox relay in-process, feeding the
 * server's subscriptions (src/boot/relay.ts; `RELAY=off` turns it off).
 *
 * SIGINT or SIGTERM (once, src/ops/cli.ts): stop accepting, let requests in flight finish (at
 * most `SHUTDOWN_GRACE_MS`, then their connections are closed), stop Apollo, stop the relay,
 * destroy the client, close the engine, exit 0. A second signal exits at once.
 */
import { authenticatorFor } from '../../auth';
import { devClaims, openDevIssuer } from '../../auth/dev-issuer';
import { bootstrap, loggerFor, serverSettings, type Runtime } from '../../boot/bootstrap';
import { readConfig } from '../../boot/config';
import { startEngine } from '@single-table/engine';
import { FAITHFUL } from '@single-table/engine/profiles';
import { customerByEmail, customerProfile, ordersByStatus, ORDER_STATUSES, type CustomerRecord } from '../../model';
import { startServer } from '../../http/server';
import { startRelay } from '../../boot/relay';
import { hubPublisher } from '../../relay/publishers';
import { checkPortFree, listenFailure, runService } from '../../ops/cli';
import { explainConnectFailure } from '../../ops/connect';
import { DEMO_CUSTOMER_EMAIL, loadDemoData } from '../../ops/demo-data';

const USAGE = 'usage: npm start (configured by the environment: see README.md, "Configuration")';

/** The dev server's engine deletes expired items (idempotency records) once a minute, as DynamoDB does eventually. */
const DEV_TTL_SWEEP_SECONDS = 60;

runService(USAGE, async () => {
  const config = readConfig();
  const logger = loggerFor(config);
  await checkPortFree(config.host, config.port);
  const runtime = await bootstrap(config, {
    // Faithful to DynamoDB (GSI lag, eventual and read-committed reads, conflicts): what works here works on Amazon.
    embedded: { start: startEngine, path: config.dataDir, ttlSweepSeconds: DEV_TTL_SWEEP_SECONDS, behaviour: FAITHFUL },
    createTable: config.createTable,
    requireTable: true,
  }).catch((error: unknown) => {
    throw explainConnectFailure(error);
  });
  try {
    const { table, engine, endpoint } = runtime;
    if (engine) logger.info({ endpoint, dataDir: config.dataDir ?? 'memory' }, 'embedded engine started');
    if (engine && runtime.ensured?.created) {
      const demo = await loadDemoData(table);
      // The faithful engine propagates index entries with a lag: the demo is served once they are all in.
      await Promise.all([engine.indexesSettled(), engine.readsSettled()]);
      logger.info({ customers: demo.customers.length, orders: demo.orders }, 'demo data loaded');
    }
    if (!config.production && !config.auth.jwksUrl) await printDevTokens(runtime);

    const server = await startServer({
      table,
      authenticate: await authenticatorFor(config.auth),
      ...serverSettings(config),
      logger,
      port: config.port,
      host: config.host,
    }).catch((error: unknown) => {
      throw listenFailure(error, config.host, config.port); // the port was taken after checkPortFree
    });
    // The outbox relay, in-process: the table's stream into the server's subscription hub (README, "Events").
    const relay =
      config.relay.inProcess === 'on' || (config.relay.inProcess === 'default' && !config.production)
        ? startRelay(runtime, hubPublisher(server.hub), logger.child({ component: 'relay' }), { name: 'hub' })
        : undefined;
    logger.info(
      { url: server.url, table: config.tableName, endpoint: endpoint ?? 'Amazon DynamoDB', relay: Boolean(relay) },
      'server ready',
    );
    console.log(`GraphQL server ready at ${server.url}${config.production ? '' : ' (open it in a browser for the explorer)'}`);
    return {
      async stop(signal) {
        logger.info({ signal }, 'shutting down');
        await server.close();
        await relay?.stop(); // its page in flight published and checkpointed, before the engine closes
        await runtime.close();
      },
      // The drain's grace period, then Apollo, the client and the engine: a few seconds more at most.
      forceExitAfterMillis: config.shutdownGraceMillis + 10_000,
    };
  } catch (error) {
    await runtime.close();
    throw error;
  }
});

/**
 * Development: ready-made tokens of the local issuer, for Sandbox's Headers tab
 * (`Authorization: Bearer <token>`): staff, and a customer: the demo customer Ana when she exists,
 * else (seeded data, `npm run seed`) the customer of the newest order of the first status that has
 * one (one GSI1 Query per status tried; nothing when the table holds no order).
 */
async function printDevTokens({ config, table }: Runtime): Promise<void> {
  const issuer = await openDevIssuer(config.auth.devKeyFile);
  const customer = await aCustomer(table).catch(() => undefined);
  const lines = [`Development tokens (24 h; send as "Authorization: Bearer <token>", more with npm run -s token):`];
  lines.push(`  staff:            ${await issuer.sign(devClaims(config.auth, { staff: true }))}`);
  if (customer) {
    lines.push(`  customer ${customer.name} (${customer.id}): ${await issuer.sign(devClaims(config.auth, { customerId: customer.id }))}`);
  }
  console.log(lines.join('\n'));
}

async function aCustomer(table: Runtime['table']): Promise<CustomerRecord | undefined> {
  const ana = await customerByEmail(table, DEMO_CUSTOMER_EMAIL);
  if (ana) return ana;
  for (const status of ORDER_STATUSES) {
    const newest = (await ordersByStatus(table, status, { first: 1 })).orders[0];
    if (newest) return customerProfile(table, newest.customerId);
  }
  return undefined;
}
