/** How the seam describes requests to the meter (the explain plan, the logs) and small list helpers. */
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export function capacityOf(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  if (!consumed) return 0;
  const list = Array.isArray(consumed) ? consumed : [consumed];
  return list.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
}

export function describeKey(key: Record<string, unknown> | undefined): string | undefined {
  if (!key) return undefined;
  return `PK = ${String(key.PK)} AND SK = ${String(key.SK)}`;
}

/** The key condition with its placeholders filled in, for humans reading the explain output. */
export function describeCondition(input: Omit<QueryCommandInput, 'TableName'>): string | undefined {
  let text = input.KeyConditionExpression;
  if (!text) return undefined;
  for (const [name, real] of Object.entries(input.ExpressionAttributeNames ?? {})) text = text.split(name).join(real);
  for (const [name, value] of Object.entries(input.ExpressionAttributeValues ?? {})) text = text.split(name).join(JSON.stringify(value));
  const direction = input.ScanIndexForward === false ? 'descending' : 'ascending';
  const limit = input.Limit !== undefined ? `, Limit ${input.Limit}` : '';
  const start = input.ExclusiveStartKey ? ', from a cursor' : '';
  return `${text} (${direction}${limit}${start})`;
}

export function dedupeKeys<K extends { PK: string; SK: string }>(keys: readonly K[]): Array<{ PK: string; SK: string }> {
  const seen = new Map<string, { PK: string; SK: string }>();
  for (const key of keys) seen.set(`${key.PK}\u0000${key.SK}`, { PK: key.PK, SK: key.SK });
  return [...seen.values()];
}

export function chunk<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
