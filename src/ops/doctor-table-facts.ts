/**
 * The table facts the doctor checks, from DescribeTable and DescribeTimeToLive (`tableFactsOf`),
 * or exactly as `tableDefinition` and `ensureTable` make the table (`expectedTableFacts`, the
 * baseline for data that has no table: exports, migration outputs, tests). Pure.
 */
import type { TableDescription, TimeToLiveDescription } from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE, tableDefinition } from '../dynamo/definition';
import type { IndexFacts, TableFacts } from './doctor-report';

/** The facts of a table exactly as `tableDefinition` and `ensureTable` make it. */
export function expectedTableFacts(name: string): TableFacts {
  const definition = tableDefinition(name);
  return tableFactsOf(
    { ...definition, TableStatus: 'ACTIVE', BillingModeSummary: { BillingMode: definition.BillingMode } } as TableDescription,
    {
      AttributeName: TTL_ATTRIBUTE,
      TimeToLiveStatus: 'ENABLED',
    },
  );
}

export function tableFactsOf(description: TableDescription, ttl: TimeToLiveDescription | undefined): TableFacts {
  const keyOf = (schema: TableDescription['KeySchema'], type: 'HASH' | 'RANGE') =>
    schema?.find((element) => element.KeyType === type)?.AttributeName ?? null;
  const index = (i: {
    IndexName?: string;
    KeySchema?: TableDescription['KeySchema'];
    Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
    IndexStatus?: string;
  }): IndexFacts => ({
    name: i.IndexName ?? '',
    partitionKey: keyOf(i.KeySchema, 'HASH'),
    sortKey: keyOf(i.KeySchema, 'RANGE'),
    projection: { type: i.Projection?.ProjectionType ?? 'ALL', attributes: [...(i.Projection?.NonKeyAttributes ?? [])] },
    status: i.IndexStatus ?? null,
  });
  return {
    name: description.TableName ?? '',
    status: description.TableStatus ?? null,
    billingMode:
      description.BillingModeSummary?.BillingMode ?? (description.ProvisionedThroughput?.ReadCapacityUnits ? 'PROVISIONED' : null),
    itemCount: description.ItemCount ?? null,
    keySchema: { partitionKey: keyOf(description.KeySchema, 'HASH'), sortKey: keyOf(description.KeySchema, 'RANGE') },
    gsis: (description.GlobalSecondaryIndexes ?? []).map(index),
    lsis: (description.LocalSecondaryIndexes ?? []).map(index),
    ttl: { attribute: ttl?.AttributeName ?? null, status: ttl?.TimeToLiveStatus ?? 'DISABLED' },
  };
}
