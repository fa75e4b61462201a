/**
 * The multi-table baseline: one table per entity, as a team coming from SQL would model it, with
 * the global secondary indexes a competent team adds for the same access patterns.
 *
 * | table         | key                       | GSIs (projection)                                                        |
 * | ------------- | ------------------------- | ------------------------------------------------------------------------ |
 * | `customers`   | id                        | `byEmail`: emailLower (ALL)                                              |
 * | `addresses`   | customerId + label        |                                                                          |
 * | `orders`      | id                        | `byCustomer`: customerId + placedAt; `byStatus`: status + placedAt; `byStatusShard`: statusShard + placedAt (all INCLUDE the order's summary fields) |
 * | `order_lines` | orderId + lineNo (number) |                                                                          |
 *
 * | access pattern                          | served by                                                          |
 * | --------------------------------------- | ------------------------------------------------------------------ |
 * | customer screen                         | GetItem customer ‖ Query addresses ‖ Query orders.byCustomer desc, Limit N+1 |
 * | a customer's orders of one month        | orders.byCustomer, begins_with(placedAt, 'YYYY-MM'), desc           |
 * | order detail                            | GetItem order ‖ Query order_lines                                  |
 * | customer by email                       | customers.byEmail                                                  |
 * | orders by status, newest first          | orders.byStatusShard, one Query per shard (the product's plan); unsharded: orders.byStatus desc, Limit N+1 |
 * | the customers of a page of orders       | BatchGetItem customers (100 keys a call)                           |
 *
 * (‖: sent together, one wave.) `statusShard` is `<status>#<n>`, n = the product's `shardOf(id)` at the
 * configured `STATUS_SHARDS`, so both designs spread a status the same way.
 */
import { CreateTableCommand, DescribeTableCommand, type CreateTableCommandInput, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isResourceInUse } from 'single-table-graphql';

export const TABLES = {
  customers: 'customers',
  addresses: 'addresses',
  orders: 'orders',
  lines: 'order_lines',
} as const;

export const INDEX = {
  byEmail: 'byEmail',
  byCustomer: 'byCustomer',
  byStatus: 'byStatus',
  byStatusShard: 'byStatusShard',
} as const;

/** The order fields a list of orders shows, projected into both order indexes. */
const ORDER_SUMMARY = ['status', 'totalCents', 'lineCount', 'customerId'];

export function multiTableDefinitions(): CreateTableCommandInput[] {
  return [
    {
      TableName: TABLES.customers,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'emailLower', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        { IndexName: INDEX.byEmail, KeySchema: [{ AttributeName: 'emailLower', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
      ],
    },
    {
      TableName: TABLES.addresses,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'customerId', AttributeType: 'S' },
        { AttributeName: 'label', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'customerId', KeyType: 'HASH' },
        { AttributeName: 'label', KeyType: 'RANGE' },
      ],
    },
    {
      TableName: TABLES.orders,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'customerId', AttributeType: 'S' },
        { AttributeName: 'status', AttributeType: 'S' },
        { AttributeName: 'placedAt', AttributeType: 'S' },
        { AttributeName: 'statusShard', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: INDEX.byCustomer,
          KeySchema: [
            { AttributeName: 'customerId', KeyType: 'HASH' },
            { AttributeName: 'placedAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ORDER_SUMMARY.filter((a) => a !== 'customerId') },
        },
        {
          IndexName: INDEX.byStatus,
          KeySchema: [
            { AttributeName: 'status', KeyType: 'HASH' },
            { AttributeName: 'placedAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ORDER_SUMMARY.filter((a) => a !== 'status') },
        },
        {
          IndexName: INDEX.byStatusShard,
          KeySchema: [
            { AttributeName: 'statusShard', KeyType: 'HASH' },
            { AttributeName: 'placedAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ORDER_SUMMARY.filter((a) => a !== 'status') },
        },
      ],
    },
    {
      TableName: TABLES.lines,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'orderId', AttributeType: 'S' },
        { AttributeName: 'lineNo', AttributeType: 'N' },
      ],
      KeySchema: [
        { AttributeName: 'orderId', KeyType: 'HASH' },
        { AttributeName: 'lineNo', KeyType: 'RANGE' },
      ],
    },
  ];
}

/** Creates the four tables (where missing) and waits until they and their indexes are ACTIVE. */
export async function createMultiTables(doc: DynamoDBDocumentClient | DynamoDBClient): Promise<void> {
  const client = doc as DynamoDBClient;
  for (const definition of multiTableDefinitions()) {
    try {
      await client.send(new CreateTableCommand(definition));
    } catch (error) {
      if (!isResourceInUse(error)) throw error;
    }
  }
  for (const definition of multiTableDefinitions()) {
    for (let attempt = 0; ; attempt++) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: definition.TableName }));
      const active =
        Table?.TableStatus === 'ACTIVE' && (Table.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
      if (active) break;
      if (attempt > 400) throw new Error(`table ${definition.TableName} did not become ACTIVE`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
