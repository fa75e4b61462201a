/**
 * Test target for the engine suites: the same tests run against any DynamoDB endpoint.
 *
 * - `DYNAMODB_TEST_ENDPOINT` set: that endpoint (Amazon, DynamoDB Local, ...) with dummy
 *   credentials in us-east-1 and a uniquely named table, deleted afterwards.
 * - Otherwise: the embedded engine on a free loopback port, closed afterwards.
 *
 * Tests assert Amazon's semantics. The few that check something only the embedded engine
 * promises (its wire log, faults, on-disk store, stronger read isolation) skip on an external
 * endpoint (`target.external`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type AttributeValue,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { startEngine, type EmbeddedEngine } from '../src/embedded';

// The SDK warns once per process that its releases after January 2027 need Node 22: not news here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const EXTERNAL_ENDPOINT = process.env.DYNAMODB_TEST_ENDPOINT || undefined;
export const external = EXTERNAL_ENDPOINT !== undefined;

export interface TestTarget {
  endpoint: string;
  /** The embedded engine, when the target is not external. */
  engine: EmbeddedEngine | undefined;
  client: DynamoDBClient;
  tableName: string;
  /** Another client (own connection pool), e.g. to play a second process. */
  newClient(config?: Partial<DynamoDBClientConfig>): DynamoDBClient;
  /** Deletes the table (external) or closes the engine; destroys the clients. */
  tearDown(): Promise<void>;
}

export function clientFor(endpoint: string, config: Partial<DynamoDBClientConfig> = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    ...config,
  });
}

/** Connects to the target and creates a fresh test table (PK/SK strings, GSI1 on GSI1PK/GSI1SK). */
export async function setUpTarget(label: string): Promise<TestTarget> {
  const engine = external ? undefined : await startEngine();
  const endpoint = EXTERNAL_ENDPOINT ?? (engine as EmbeddedEngine).endpoint;
  const clients: DynamoDBClient[] = [];
  const newClient = (config?: Partial<DynamoDBClientConfig>) => {
    const client = clientFor(endpoint, config);
    clients.push(client);
    return client;
  };
  const client = newClient();
  const tableName = uniqueTableName(label);
  await createTestTable(client, tableName);
  return {
    endpoint,
    engine,
    client,
    tableName,
    newClient,
    async tearDown() {
      try {
        if (external) await client.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        for (const c of clients) c.destroy();
        await engine?.close();
      }
    },
  };
}

export function uniqueTableName(label: string): string {
  return `engine-test-${label}-${randomUUID().slice(0, 8)}`;
}

/** The table every engine test uses: PK/SK and GSI1 (projection ALL), on demand. */
export function testTableDefinition(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' as const },
      { AttributeName: 'SK', KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'GSI1',
        KeySchema: [
          { AttributeName: 'GSI1PK', KeyType: 'HASH' as const },
          { AttributeName: 'GSI1SK', KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'ALL' as const },
      },
    ],
  };
}

export async function createTestTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand(testTableDefinition(tableName)));
  await waitUntilActive(client, tableName);
}

/** Polls DescribeTable until the table and its indexes are ACTIVE (fast locally, patient on AWS). */
export async function waitUntilActive(client: DynamoDBClient, tableName: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 2000)) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} not ACTIVE after ${timeoutMs} ms`);
    await sleep(delay);
  }
}

/** Retries `check` until it stops throwing: GSIs are eventually consistent on Amazon. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = external ? 15_000 : 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/* Attribute values, spelled out: the tests speak the wire format. */
export const S = (value: string): AttributeValue => ({ S: value });
export const N = (value: number): AttributeValue => ({ N: String(value) });
/** A list of Strings. */
export const list = (...values: string[]): AttributeValue => ({ L: values.map((v) => S(v)) });
export const key = (pk: string, sk: string): Record<string, AttributeValue> => ({ PK: S(pk), SK: S(sk) });

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await promise;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error('expected the request to fail, but it succeeded');
}

export interface RunningCli {
  process: ChildProcess;
  endpoint: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  output(): string;
}

/** Starts the engine CLI (`src/main.ts`) as its own Node process (one process: SIGKILL really kills the engine). */
export async function startCli(args: string[], nodeFlags: readonly string[] = []): Promise<RunningCli> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/main.ts', ...args], {
    cwd: join(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`engine CLI exited (${code}) before listening:\n${output}`)));
  });
  return { process: child, endpoint, exited, output: () => output };
}
