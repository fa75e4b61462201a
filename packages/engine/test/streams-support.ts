/**
 * The DynamoDB Streams suites' harness (streams.int.test.ts, streams-engine.int.test.ts): a DynamoDB
 * client and a DynamoDB Streams client (the real SDKs) on the test target, tables with streams, and
 * readers. On the embedded engine it runs the FAITHFUL profile and a streams clock the tests move.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  PutItemCommand,
  type AttributeValue,
  type CreateTableCommandOutput,
  type DynamoDBClient,
  type StreamViewType,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type GetRecordsCommandOutput,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { FAITHFUL } from '../src/profiles';
import { EXTERNAL_ENDPOINT, clientFor, external, testTableDefinition, uniqueTableName, waitUntilActive } from './support';

export const HOUR = 60 * 60 * 1000;

export function streamsClientFor(endpoint: string): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
}

/** "INSERT sk" per record. */
export const summary = (records: _Record[]) => records.map((r) => `${r.eventName} ${r.dynamodb?.Keys?.SK?.S}`);

export interface StreamsHarness {
  engine: EmbeddedEngine | undefined;
  client: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  /** Moves the embedded engine's streams clock (ms ahead of now). */
  clock: { offset: number };
  createStreamTable(
    label: string,
    viewType?: StreamViewType | null,
  ): Promise<{ name: string; arn: string; created: CreateTableCommandOutput }>;
  shardOf(
    arn: string,
  ): Promise<{ ShardId?: string; SequenceNumberRange?: { StartingSequenceNumber?: string; EndingSequenceNumber?: string } }>;
  iterator(arn: string, type: ShardIteratorType, sequenceNumber?: string): Promise<string>;
  /** Every record from `start` (TRIM_HORIZON by default) to the end of what is there now. */
  readAll(arn: string, start?: string): Promise<_Record[]>;
  put(table: string, item: Record<string, AttributeValue>): Promise<unknown>;
  tearDown(): Promise<void>;
}

export async function setUpStreams(): Promise<StreamsHarness> {
  const clock = { offset: 0 };
  const engine = external ? undefined : await startEngine({ ...FAITHFUL, streamsClock: () => Date.now() + clock.offset });
  const endpoint = EXTERNAL_ENDPOINT ?? (engine as EmbeddedEngine).endpoint;
  const client = clientFor(endpoint);
  const streams = streamsClientFor(endpoint);
  const tables: string[] = [];

  const shardOf = async (arn: string) => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    return StreamDescription!.Shards![0]!;
  };
  const iterator = async (arn: string, type: ShardIteratorType, sequenceNumber?: string) => {
    const shard = await shardOf(arn);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: type, SequenceNumber: sequenceNumber }),
    );
    return ShardIterator as string;
  };
  return {
    engine,
    client,
    streams,
    clock,
    async createStreamTable(label, viewType = 'NEW_AND_OLD_IMAGES') {
      const name = uniqueTableName(label);
      const spec = viewType ? { StreamSpecification: { StreamEnabled: true, StreamViewType: viewType } } : {};
      const created = await client.send(new CreateTableCommand({ ...testTableDefinition(name), ...spec }));
      tables.push(name);
      await waitUntilActive(client, name);
      return { name, arn: created.TableDescription?.LatestStreamArn as string, created };
    },
    shardOf,
    iterator,
    async readAll(arn, start) {
      let next: string | undefined = start ?? (await iterator(arn, 'TRIM_HORIZON'));
      const records: _Record[] = [];
      while (next) {
        const page: GetRecordsCommandOutput = await streams.send(new GetRecordsCommand({ ShardIterator: next }));
        records.push(...(page.Records ?? []));
        if (!page.Records?.length) break;
        next = page.NextShardIterator;
      }
      return records;
    },
    put: (table, item) => client.send(new PutItemCommand({ TableName: table, Item: item })),
    async tearDown() {
      for (const name of tables) await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
      client.destroy();
      streams.destroy();
      await engine?.close();
    },
  };
}
