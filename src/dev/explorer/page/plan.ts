/// <reference lib="dom" />
/**
 * What the page knows of an operation: the server's `extensions.dynamodb` plan (src/http/plugins.ts,
 * `explainPlan`) and the windows on the partitions it read (`GET /dev/partition`,
 * src/dev/explorer/partition.ts). The page talks to this server only: the GraphQL endpoint and that
 * endpoint, both same-origin, never the engine.
 */

// The server's own shapes, as JSON carries them (type-only: nothing of the server is bundled).
import type { TouchedKey } from '../../../dynamo/meter';
import type { PartitionAnswer, PartitionRow } from '../partition';

export type { PartitionRow };
/** A partition window as `GET /dev/partition` answers it. */
export type PartitionWindow = PartitionAnswer;

/** The keys of an item a request returned or wrote, as the plan lists them, with its entity's name. */
export type PlanKey = TouchedKey & { entity: string | null };

export interface PlanRequest {
  operation: string;
  index: string | null;
  keyCondition: string | null;
  partition: string | null;
  keys: PlanKey[];
  items: number;
  scanned: number;
  consumedCapacity: number;
  wave: number;
  ms: number;
  error?: string;
}

export interface Plan {
  requests: PlanRequest[];
  waves: number;
  totals: { requests: number; items: number; scanned: number; consumedCapacity: number };
}

/** One executed operation, as the Table view draws it. */
export interface Explained {
  /** Increases with each operation, so views know a new one arrived. */
  seq: number;
  operationName: string | null;
  plan: Plan | undefined;
  /** The Authorization header the operation was sent with: the partition windows are read with it. */
  authorization: string | null;
}

export const READS = new Set(['Query', 'GetItem']);

/** The index a request read ('table' for the base table). */
export function indexOf(request: PlanRequest): 'table' | 'GSI1' {
  return request.index === 'GSI1' ? 'GSI1' : 'table';
}

/** The partition and sort key of a row or key on an index. */
export function keysOn(index: 'table' | 'GSI1', key: { PK: string; SK: string; GSI1PK?: string; GSI1SK?: string }) {
  return index === 'GSI1' ? { pk: key.GSI1PK ?? '', sk: key.GSI1SK ?? '' } : { pk: key.PK, sk: key.SK };
}

/** Reads `pk` around the sort-key range `keys` span (the first rows of the partition when none). */
export async function fetchWindow(
  authorization: string | null,
  index: 'table' | 'GSI1',
  pk: string,
  keys: readonly PlanKey[],
): Promise<PartitionWindow> {
  const params = new URLSearchParams({ pk, index });
  const sortKeys = keys.map((key) => keysOn(index, key).sk).sort();
  if (sortKeys.length > 0) {
    params.set('from', sortKeys[0] as string);
    params.set('to', sortKeys[sortKeys.length - 1] as string);
  }
  const response = await fetch(`/dev/partition?${params}`, { headers: authorization ? { authorization } : {} });
  if (!response.ok) throw new Error(`GET /dev/partition answered ${response.status}`);
  return (await response.json()) as PartitionWindow;
}

/** Fixed colours of the entities (the pattern card colours rows by entity); others by their name. */
const COLOURS: Record<string, string> = {
  'Customer profile': '#2563eb',
  Address: '#059669',
  'Order summary': '#d97706',
  'Order header': '#db2777',
  'Order line': '#7c3aed',
  Product: '#0891b2',
  'Email guard': '#64748b',
  'Idempotency record': '#92400e',
  'Migration record': '#475569',
  'Migration checkpoint': '#475569',
};
const SPARE = ['#be123c', '#4d7c0f', '#1d4ed8', '#a21caf'];

export function colourOf(entity: string | null): string {
  if (!entity) return '#9ca3af';
  const fixed = COLOURS[entity];
  if (fixed) return fixed;
  let hash = 0;
  for (const char of entity) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return SPARE[hash % SPARE.length] as string;
}
