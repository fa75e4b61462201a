import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isResourceInUse, isResourceNotFound } from './errors';

/** The TTL attribute: epoch seconds, carried by idempotency records and nothing else. */
export const TTL_ATTRIBUTE = 'expiresAt';
export const GSI1 = 'GSI1';

/**
 * GSI1 projects INCLUDE, on purpose. The customer profile ("customer by email") and the order
 * summary ("orders by status") are served from the index alone: it carries exactly the attributes
 * those GraphQL reads return, with no second read of the base table. Order lines ("orders by SKU",
 * added later by migration 0001) put only their keys there and the query reads the order headers
 * after. Nothing else (addresses, line details, idempotency payloads) ever widens the index copy,
 * whose storage and write capacity we pay for. Adding an attribute here means a new index, which
 * is deliberate friction: decide it in review.
 */
export const GSI1_PROJECTED_ATTRIBUTES = [
  'type',
  'id',
  'name',
  'email',
  'createdAt',
  'customerId',
  'placedAt',
  'status',
  'totalCents',
  'lineCount',
] as const;

const gsi1: GlobalSecondaryIndex = {
  IndexName: GSI1,
  KeySchema: [
    { AttributeName: 'GSI1PK', KeyType: 'HASH' },
    { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...GSI1_PROJECTED_ATTRIBUTES] },
};

/**
 * The table's stream: every change with its old and new item, which the outbox relay reads (events
 * are items written in the same transaction as the data they describe).
 */
export const STREAM_SPECIFICATION = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const;

/** The table as `table:create` makes it: generic string keys, one overloaded GSI, no LSI, on-demand, its stream on. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'SK', AttributeType: 'S' },
      { AttributeName: 'GSI1PK', AttributeType: 'S' },
      { AttributeName: 'GSI1SK', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [gsi1],
    StreamSpecification: { ...STREAM_SPECIFICATION },
  };
}

export interface EnsureResult {
  created: boolean;
  indexAdded: boolean;
  ttlEnabled: boolean;
  streamEnabled: boolean;
}

/**
 * Creates the table, its index, its stream and its TTL where they are missing and changes nothing that
 * exists. Waits until the table (and an index it added) is ACTIVE. Safe to run concurrently with
 * another caller: a lost creation race is treated as "it exists".
 */
export async function ensureTable(doc: DynamoDBDocumentClient | DynamoDBClient, tableName: string): Promise<EnsureResult> {
  const client = doc as DynamoDBClient;
  const result: EnsureResult = { created: false, indexAdded: false, ttlEnabled: false, streamEnabled: false };
  let description = await describeTable(client, tableName);
  if (!description) {
    try {
      await client.send(new CreateTableCommand(tableDefinition(tableName)));
      result.created = true;
    } catch (error) {
      if (!isResourceInUse(error)) throw error;
    }
    description = await waitActive(client, tableName);
  }
  const indexes = description.GlobalSecondaryIndexes ?? [];
  if (!indexes.some((index) => index.IndexName === GSI1)) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: tableDefinition(tableName).AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: gsi1 }],
      }),
    );
    result.indexAdded = true;
    await waitActive(client, tableName);
  }
  // A stream of another view type is left alone: DynamoDB cannot change it in place (disable, then enable).
  if (!description.StreamSpecification?.StreamEnabled) {
    try {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { ...STREAM_SPECIFICATION } }));
      result.streamEnabled = true;
    } catch (error) {
      // A concurrent caller enabled it first ("Table already has an enabled stream").
      if (!(error instanceof Error && /already has an enabled stream/.test(error.message))) throw error;
    }
    await waitActive(client, tableName);
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
    result.ttlEnabled = true;
  }
  return result;
}

/** The table's description, or undefined when there is no such table. */
export async function describeTable(doc: DynamoDBClient | DynamoDBDocumentClient, tableName: string) {
  const client = doc as DynamoDBClient;
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (isResourceNotFound(error)) return undefined;
    throw error;
  }
}

async function waitActive(client: DynamoDBClient, tableName: string) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const table = await describeTable(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    await new Promise((resolve) => setTimeout(resolve, attempt < 20 ? 50 : 1000));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}
