/**
 * The relay's Lambda handler (src/entry/lambda-relay.ts) with synthetic DynamoDB stream events (the
 * shape of aws-lambda's DynamoDBStreamEvent, built from the outbox items real mutations wrote)
 * against the real table: PutEvents batches of at most 10, only the failed entries retried,
 * partial batch responses naming the first failed record, poison records reported, the stats kept
 * once per event. EventBridge is the one stub (there is none locally).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PutEventsCommand, PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { DynamoDBRecord } from 'aws-lambda';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startStack, type Stack } from './support/stack';
import { bundleInputs } from './support/lambda';
import { loadCatalog, writeHelpers } from './support/write-path';
import { insertRecord } from './support/relay';
import { createRelayHandler } from '../src/entry/lambda-relay';
import { customerProfile, eventFromItem } from '../src/model';
import type { Item } from '../src/dynamo/table';

const root = fileURLToPath(new URL('..', import.meta.url));
let stack: Stack;
const { createCustomer, placeOrder } = writeHelpers(() => stack);
let customerId: string;
let eventItems: Item[];

beforeAll(async () => {
  stack = await startStack();
  await loadCatalog(stack);
  const customer = await createCustomer('Lambda Lola');
  customerId = customer.id;
  for (let i = 0; i < 11; i++) await placeOrder(customer.id);
  eventItems = (await stack.items())
    .filter((item) => item.type === 'EVENT' && item.customerId === customer.id)
    .sort((a, b) => String(a.eventId).localeCompare(String(b.eventId))); // commit order: monotonic ULIDs of one process
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** An EventBridge client stub: records each PutEvents call and answers with `answer`. */
function eventBridge(answer: (entries: PutEventsRequestEntry[], call: number) => Array<string | undefined> = () => []) {
  const calls: PutEventsRequestEntry[][] = [];
  return {
    calls,
    async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      const errors = answer(entries, calls.length);
      return {
        $metadata: {},
        FailedEntryCount: errors.filter(Boolean).length,
        Entries: entries.map((_, i) => (errors[i] ? { ErrorCode: errors[i], ErrorMessage: 'stub failure' } : { EventId: `eb-${i}` })),
      };
    },
  };
}

function handlerWith(client: ReturnType<typeof eventBridge>) {
  return createRelayHandler({
    eventBridge: client,
    env: {
      DYNAMODB_ENDPOINT: stack.engine.endpoint,
      TABLE_NAME: stack.tableName,
      EVENT_BUS_NAME: 'app-events',
      NODE_ENV: 'production',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'silent',
    },
  });
}

const seq = (n: number) => String(100_000_000_000_000_000_000n + BigInt(n));
/** The mapping's batch: the outbox INSERTs, in commit order, with a profile MODIFY among them (skipped). */
function batch(items: readonly Item[]): { Records: DynamoDBRecord[] } {
  const records = items.map((item, i) => insertRecord(item, seq(i + 1)));
  const modify = {
    ...insertRecord({ PK: `CUSTOMER#${customerId}`, SK: 'PROFILE', type: 'CUSTOMER' }, seq(999)),
    eventName: 'MODIFY' as const,
  };
  return { Records: [records[0]!, modify, ...records.slice(1)] };
}

const statsOf = async () => (await customerProfile(stack.table, customerId, true))?.stats;

describe('the relay Lambda handler', () => {
  it('publishes every outbox record with PutEvents, 10 entries a call, and counts each order once', async () => {
    expect(eventItems).toHaveLength(12); // CustomerCreated and 11 OrderPlaced
    const client = eventBridge();
    const response = await handlerWith(client)(batch(eventItems));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(client.calls.map((entries) => entries.length)).toEqual([10, 2]);
    const entries = client.calls.flat();
    const events = eventItems.map((item) => eventFromItem(item));
    expect(entries.map((entry) => entry.DetailType)).toEqual(events.map((event) => event.eventType));
    for (const [i, entry] of entries.entries()) {
      expect(entry).toMatchObject({ EventBusName: 'app-events', Source: 'single-table-graphql', Time: new Date(events[i]!.occurredAt) });
      expect(JSON.parse(entry.Detail!)).toEqual(events[i]); // eventId inside: consumers de-duplicate on it
    }
    const stats = await statsOf();
    const total = events.reduce((sum, event) => sum + (event.eventType === 'OrderPlaced' ? Number(event.payload.totalCents) : 0), 0);
    expect(stats).toMatchObject({ orderCount: 11, lifetimeCents: total });
    // The same batch again (a retry): published again, counted no more.
    expect(await handlerWith(eventBridge())(batch(eventItems))).toEqual({ batchItemFailures: [] });
    expect(await statsOf()).toEqual(stats);
  });

  it('retries only the entries PutEvents reported failed', async () => {
    const client = eventBridge((entries, call) => (call === 1 ? entries.map((_, i) => (i === 2 ? 'ThrottlingException' : undefined)) : []));
    expect(await handlerWith(client)(batch(eventItems))).toEqual({ batchItemFailures: [] });
    expect(client.calls.map((entries) => entries.length)).toEqual([10, 1, 2]);
    expect(client.calls[1]![0]!.Detail).toBe(client.calls[0]![2]!.Detail);
  });

  it('answers a partial batch failure naming the first record whose event could not be published', async () => {
    const refused = eventFromItem(eventItems[4]!).eventId;
    const client = eventBridge((entries) => entries.map((entry) => (entry.Detail!.includes(refused) ? 'InternalFailure' : undefined)));
    const events = batch(eventItems);
    const response = await handlerWith(client)(events);
    // Record 4 is the 6th of the batch (the MODIFY sits second): Lambda retries from its SequenceNumber.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: events.Records[5]!.dynamodb!.SequenceNumber }] });
    expect(client.calls.length).toBe(1 + 3 + 1); // the chunk, 3 retries of the failed entry, the next chunk
  });

  it('reports a poison record (an outbox image that does not decode) as the failure, for the dead-letter queue', async () => {
    const poison = { ...eventItems[1]!, payload: 'not an object' };
    const events = batch([eventItems[0]!, poison, eventItems[2]!]);
    const client = eventBridge();
    const response = await handlerWith(client)(events);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: events.Records[2]!.dynamodb!.SequenceNumber }] });
    expect(client.calls.flat().map((entry) => entry.DetailType)).toEqual(['CustomerCreated']); // what came before it
  });

  it('is the bundle `sam build` makes (make build-RelayFunction): it loads and answers in a plain Node process', async () => {
    const artifacts = mkdtempSync(join(tmpdir(), 'relay-artifacts-'));
    try {
      await promisify(execFile)('make', ['-s', 'build-RelayFunction', `ARTIFACTS_DIR=${artifacts}`], { cwd: root });
      // Records the mapping would have filtered out (not outbox INSERTs): nothing to publish, no EventBridge call.
      const modify = { ...insertRecord({ PK: `CUSTOMER#${customerId}`, SK: 'PROFILE', type: 'CUSTOMER' }, seq(1)), eventName: 'MODIFY' };
      const driver = `
        const module = await import(${JSON.stringify(join(artifacts, 'lambda-relay.mjs'))});
        const result = await module.handler({ Records: JSON.parse(process.env.RECORDS) }, { awsRequestId: 'bundle' });
        process.stdout.write(JSON.stringify({ exports: Object.keys(module).sort(), result }));
        process.exit(0);
      `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', driver], {
        cwd: artifacts,
        env: {
          PATH: process.env.PATH,
          RECORDS: JSON.stringify([modify]),
          DYNAMODB_ENDPOINT: stack.engine.endpoint,
          TABLE_NAME: stack.tableName,
          EVENT_BUS_NAME: 'app-events',
          NODE_ENV: 'production',
          AWS_REGION: 'eu-west-1',
          LOG_LEVEL: 'silent',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      });
      expect(JSON.parse(stdout)).toEqual({ exports: ['createRelayHandler', 'handler'], result: { batchItemFailures: [] } });
    } finally {
      rmSync(artifacts, { recursive: true, force: true });
    }
  });

  // Configuration declares admission's settings (src/admission/settings.ts) and the manifest reader; nothing of admission runs here.
  it('is bundled without the embedded engine or the GraphQL server', async () => {
    const inputs = await bundleInputs('src/entry/lambda-relay.ts');
    expect(inputs).toContain('src/entry/lambda-relay.ts');
    expect(
      inputs.filter((input) =>
        /^src\/(engine|schema|resolvers|http|live|loaders|request)\/|^packages\/engine\/|^src\/admission\/(?!settings|trusted-documents)|node_modules\/(@single-table\/engine|dynalite|@apollo|graphql-jit)\//.test(
          input,
        ),
      ),
    ).toEqual([]);
  });
});
