/** How the seam describes requests to the meter (the explain plan, the logs) and small list helpers. */
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TouchedKey } from './meter';

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

/**
 * The keys of items, as the explain plan shows them (`TouchedKey`): table keys, GSI1 keys and
 * `type` when present, nothing else of the item. Empty for no items.
 */
export function touchedKeys(items: readonly Record<string, unknown>[] | undefined, action?: TouchedKey['action']): TouchedKey[] {
  return (items ?? []).map((item) => touchedKey(item, action));
}

export function touchedKey(item: Record<string, unknown>, action?: TouchedKey['action']): TouchedKey {
  const key: TouchedKey = { PK: String(item.PK), SK: String(item.SK) };
  if (typeof item.GSI1PK === 'string') key.GSI1PK = item.GSI1PK;
  if (typeof item.GSI1SK === 'string') key.GSI1SK = item.GSI1SK;
  if (typeof item.type === 'string') key.type = item.type;
  if (action) key.action = action;
  return key;
}

/**
 * The partition key value a Query names: the value of its key condition's equality clause (the
 * first clause of a condition DynamoDB accepts). Undefined when the condition names none.
 */
export function partitionOf(input: Omit<QueryCommandInput, 'TableName'>): string | undefined {
  const first = input.KeyConditionExpression?.split(/\s+AND\s+/i)[0];
  const match = first ? /^\s*\(?\s*[#\w]+\s*=\s*(:\w+)\s*\)?\s*$/.exec(first) : null;
  const value = match ? input.ExpressionAttributeValues?.[match[1] as string] : undefined;
  return typeof value === 'string' ? value : undefined;
}
