/**
 * The relay's AWS Lambda entry point (`lambda-relay.handler` in template.yaml, its own bundle:
 * `make build-RelayFunction`): the table's stream event source mapping invokes it with batches of
 * stream records (filtered to outbox INSERTs by the mapping), and it publishes their events to
 * Amazon EventBridge (`EVENT_BUS_NAME`, `EVENT_SOURCE`) and keeps Customer.stats, answering with a
 * partial batch response (src/relay/stream-batch.ts).
 *
 * Per container: the configuration (no identity provider needed: it verifies no token), the
 * DynamoDB client and `Table` (one bootstrap, src/boot/bootstrap.ts) and the EventBridge client are
 * made on the first invocation and reused. `createRelayHandler` takes another EventBridge client
 * (a test's stub: there is no EventBridge locally).
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { readConfig } from '../boot/config';
import { bootstrap, loggerFor } from '../boot/bootstrap';
import { eventBridgePublisher, type PutEventsSender } from '../relay/publishers';
import { relayStreamBatch } from '../relay/stream-batch';

export type RelayHandler = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

export interface RelayHandlerOptions {
  /** The EventBridge client; default the SDK's in `AWS_REGION`. */
  eventBridge?: PutEventsSender;
  env?: NodeJS.ProcessEnv;
}

/** A handler with its own container (the module's `handler` is one of these). */
export function createRelayHandler(options: RelayHandlerOptions = {}): RelayHandler {
  let container: Promise<RelayHandler> | undefined;
  return async (event, context) => {
    container ??= createContainer(options).catch((error: unknown) => {
      container = undefined;
      throw error;
    });
    return (await container)(event, context);
  };
}

async function createContainer(options: RelayHandlerOptions): Promise<RelayHandler> {
  const config = readConfig(options.env, { auth: false });
  const busName = config.relay.eventBusName;
  if (!busName) throw new Error('the relay needs EVENT_BUS_NAME (the EventBridge bus to publish to)');
  const logger = loggerFor(config);
  const { table } = await bootstrap(config); // never the embedded engine: not even in the bundle
  const publisher = eventBridgePublisher({
    client: options.eventBridge ?? new EventBridgeClient({ region: config.region }),
    eventBusName: busName,
    source: config.relay.eventSource,
  });
  logger.info({ table: config.tableName, eventBus: busName }, 'relay container ready');
  return (event) => relayStreamBatch(event, { publisher, statsTable: table, logger });
}

/** The Lambda handler (`lambda-relay.handler` in template.yaml). */
export const handler: RelayHandler = createRelayHandler();
