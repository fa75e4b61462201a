/**
 * `npm run relay`: the outbox relay alone, a long-running service (README, "Events"). It reads the
 * table's stream and publishes every outbox event at least once: to Amazon EventBridge with
 * `EVENT_BUS_NAME`, otherwise one JSON line per event on stdout; and keeps Customer.stats. Its
 * checkpoint is in the table (`RELAY#<name>`), so a restart resumes where it stopped.
 *
 *   npm run relay [-- --name NAME] [--status]
 *
 * Target: `DYNAMODB_ENDPOINT` (e.g. `npm run engine`), Amazon DynamoDB with `NODE_ENV=production`,
 * or the embedded engine on disk in `DATA_DIR` (default .data), as the other table tools. `npm
 * start` runs its own relay in-process (feeding its subscriptions), named `hub`: the two keep
 * separate checkpoints and both may run (the stats are counted once whichever applies them).
 *
 * `--status`: prints each shard's checkpoint and the dead letters, then exits.
 * SIGINT/SIGTERM: the page in flight is published and checkpointed, then the process exits 0.
 */
import { parseArgs } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import pino from 'pino';
import { bootstrap } from '../../boot/bootstrap';
import { readConfig } from '../../boot/config';
import { startEngine } from '@single-table/engine';
import { CheckpointStore } from '../../relay/checkpoint';
import { startRelay } from '../../boot/relay';
import { eventBridgePublisher, logPublisher, type Publisher } from '../../relay/publishers';
import { parseOptions, runService, TOOL_TARGET } from '../../ops/cli';
import { explainConnectFailure } from '../../ops/connect';

const USAGE = `usage: npm run relay [-- --name NAME] [--status]
Publishes the outbox events of the table's stream, at least once: to EventBridge (EVENT_BUS_NAME,
EVENT_SOURCE), else as JSON lines on stdout; keeps Customer.stats. Checkpoint in the table.
  --name NAME   the checkpoint's name (default: eventbridge, or log)
  --status      print the checkpoints and dead letters, and exit
${TOOL_TARGET}`;

runService(USAGE, async () => {
  const { values } = parseOptions(() =>
    parseArgs({
      options: { name: { type: 'string' }, status: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const config = readConfig(undefined, { auth: false });
  // Logs go to stderr: stdout carries the events when there is no bus.
  const logger = pino({ level: config.logLevel, base: { service: 'single-table-graphql', component: 'relay' } }, pino.destination(2));
  const runtime = await bootstrap(config, {
    embedded: { start: startEngine, path: config.dataDir ?? '.data' },
    requireTable: true,
  }).catch((error: unknown) => {
    throw explainConnectFailure(error);
  });
  const bus = config.relay.eventBusName;
  const publisher: Publisher = bus
    ? eventBridgePublisher({
        client: new EventBridgeClient({ region: config.region }),
        eventBusName: bus,
        source: config.relay.eventSource,
      })
    : logPublisher();
  const name = values.name ?? publisher.name;

  if (values.status) {
    const store = new CheckpointStore(runtime.table, name);
    console.error(JSON.stringify({ relay: name, checkpoints: await store.checkpoints(), deadLetters: await store.deadLetters() }, null, 2));
    await runtime.close();
    process.exit(0);
  }

  const running = startRelay(runtime, publisher, logger, { name });
  console.error(
    `relay ${name} publishing ${bus ? `to EventBridge bus ${bus}` : 'to stdout'} from ${runtime.where}, table ${config.tableName}`,
  );
  return {
    async stop(signal) {
      console.error(`${signal}: stopping the relay (${JSON.stringify(running.relay.counters.snapshot())})`);
      await running.stop();
      await runtime.close();
    },
  };
});
