/**
 * The relay as a long-running process runs it (`npm run relay`, and `npm start` in development,
 * in-process): its Streams client, made like the DynamoDB client (the same endpoint, region and
 * credentials: the embedded engine serves the Streams API on its own port), and a started `Relay`.
 */
import { DynamoDBStreamsClient, type DynamoDBStreamsClientConfig } from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from 'pino';
import type { Runtime } from './bootstrap';
import { Relay } from '../relay/relay';
import type { Publisher } from '../relay/publishers';

/** The Streams client of a runtime: its endpoint (the embedded engine's, DYNAMODB_ENDPOINT) or Amazon's in its region. */
export function streamsClientFor(runtime: Pick<Runtime, 'endpoint' | 'config'>): DynamoDBStreamsClient {
  const config: DynamoDBStreamsClientConfig = { region: runtime.config.region, maxAttempts: 5 };
  if (runtime.endpoint) {
    config.endpoint = runtime.endpoint;
    if (!runtime.config.awsCredentialsInEnvironment) config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return new DynamoDBStreamsClient(config);
}

export interface RunningRelay {
  relay: Relay;
  /** Stops polling (the page in flight is delivered and checkpointed), then destroys its client. */
  stop(): Promise<void>;
}

/** Starts a relay over a runtime's table and stream, publishing to `publisher`. */
export function startRelay(runtime: Runtime, publisher: Publisher, logger: Logger, options: { name?: string } = {}): RunningRelay {
  const streams = streamsClientFor(runtime);
  const relay = new Relay({
    tableName: runtime.config.tableName,
    doc: runtime.doc,
    streams,
    table: runtime.table,
    publisher,
    ...(options.name ? { name: options.name } : {}),
    pollMillis: runtime.config.relay.pollMillis,
    maxAttempts: runtime.config.relay.maxAttempts,
    logger,
  });
  relay.start();
  return {
    relay,
    async stop() {
      await relay.stop();
      streams.destroy();
    },
  };
}
