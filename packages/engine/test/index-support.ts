/** What the online-index suites share (index-updates.int.test.ts, index-resume.int.test.ts). */
import { QueryCommand, type AttributeValue, type UpdateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { S } from './support';

export type Row = Record<string, AttributeValue>;

/** A Create of index `name` on STATUS (S, partition) and AT (N, sort). */
export function createIndex(
  table: string,
  name: string,
  projection: { ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'; NonKeyAttributes?: string[] },
) {
  return {
    TableName: table,
    AttributeDefinitions: [
      { AttributeName: 'STATUS', AttributeType: 'S' as const },
      { AttributeName: 'AT', AttributeType: 'N' as const },
    ],
    GlobalSecondaryIndexUpdates: [
      {
        Create: {
          IndexName: name,
          KeySchema: [
            { AttributeName: 'STATUS', KeyType: 'HASH' as const },
            { AttributeName: 'AT', KeyType: 'RANGE' as const },
          ],
          Projection: projection,
        },
      },
    ],
  } satisfies UpdateTableCommandInput;
}

export const byStatus = (table: string, index: string, status: string) =>
  new QueryCommand({
    TableName: table,
    IndexName: index,
    KeyConditionExpression: '#s = :s',
    ExpressionAttributeNames: { '#s': 'STATUS' },
    ExpressionAttributeValues: { ':s': S(status) },
  });

export const order = (items: Row[] | undefined) => [...(items ?? [])].sort((a, b) => Number(a.AT?.N) - Number(b.AT?.N));
