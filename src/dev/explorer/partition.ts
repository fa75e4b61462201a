/**
 * `GET /dev/partition`: the rows of one partition around the sort-key range an operation read,
 * for the explorer's Table view. Development only (server.ts never routes it in production).
 *
 * Query: `pk` (the partition key value), `index` (`table`, default, or `GSI1`), and `from`/`to`
 * (the sort-key range the operation's request returned; both or neither). Answers
 * `{ pk, index, rows, moreBefore, moreAfter }`, at most `PARTITION_WINDOW_ROWS` rows, read through
 * the model (`partitionWindow`, `indexPartitionWindow`) and the metered `Table`.
 *
 * Who may see which partition follows the access rules of the API (src/schema/access.ts):
 * staff any; a customer its own customer partition, its orders' partitions, its idempotency
 * records and the catalog; anyone else (anonymous included) the catalog only. A refused partition
 * is answered exactly as an empty one (same status, same body), so the endpoint tells nobody
 * whether a partition they may not see exists. A token that does not verify is HTTP 401.
 */
import type { Authenticate, Principal } from '../../auth';
import { AuthenticationFailed, ownCustomerId } from '../../auth';
import type { Item, Table } from '../../dynamo/table';
import {
  CATALOG_PK,
  customerKeys,
  entityOf,
  idempotencyEntity,
  indexPartitionWindow,
  orderHeaderEntity,
  orderOwner,
  partitionWindow,
  type PartitionWindow,
} from '../../model';

/** Longest partition or sort key accepted (DynamoDB's own limits: 2048 and 1024 bytes). */
const MAX_PK_BYTES = 2048;
const MAX_SK_BYTES = 1024;
/** Non-key attributes shown per row, and their longest shown text. */
const SHOWN_ATTRIBUTES = 3;
const SHOWN_CHARS = 40;
const KEY_ATTRIBUTES = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK', 'type']);

export interface PartitionRow {
  PK: string;
  SK: string;
  GSI1PK?: string;
  GSI1SK?: string;
  type: string | null;
  entity: string | null;
  /** A few non-key attributes, as short text. */
  attributes: Record<string, string>;
}

export interface PartitionAnswer {
  pk: string;
  index: 'table' | 'GSI1';
  rows: PartitionRow[];
  moreBefore: boolean;
  moreAfter: boolean;
}

export type PartitionResult = { status: 200; body: PartitionAnswer } | { status: 400 | 401; body: { error: string } };

export async function partitionEndpoint(
  table: Table,
  authenticate: Authenticate,
  authorization: string | undefined,
  params: URLSearchParams,
): Promise<PartitionResult> {
  let principal: Principal;
  try {
    principal = await authenticate(authorization);
  } catch (error) {
    if (error instanceof AuthenticationFailed) return { status: 401, body: { error: error.message } };
    throw error;
  }
  const pk = params.get('pk') ?? '';
  const index = params.get('index') ?? 'table';
  const from = params.get('from') ?? undefined;
  const to = params.get('to') ?? undefined;
  if (!pk || Buffer.byteLength(pk) > MAX_PK_BYTES)
    return { status: 400, body: { error: `pk: a partition key of 1 to ${MAX_PK_BYTES} bytes` } };
  if (index !== 'table' && index !== 'GSI1') return { status: 400, body: { error: 'index: table or GSI1' } };
  if ((from === undefined) !== (to === undefined)) return { status: 400, body: { error: 'from and to: both or neither' } };
  if ([from, to].some((sk) => sk !== undefined && (sk.length === 0 || Buffer.byteLength(sk) > MAX_SK_BYTES)))
    return { status: 400, body: { error: `from, to: sort keys of 1 to ${MAX_SK_BYTES} bytes` } };

  const empty: PartitionAnswer = { pk, index, rows: [], moreBefore: false, moreAfter: false };
  if (!mayRead(principal, index, pk)) {
    if (!mayReadAfterwards(principal, index, pk)) return { status: 200, body: empty };
    // An order's partition is the customer's when its header says so: known only by reading it (1 GetItem).
    if ((await orderOwner(table, pk)) !== ownCustomerId(principal)) return { status: 200, body: empty };
  }
  const read = index === 'GSI1' ? indexPartitionWindow : partitionWindow;
  const window: PartitionWindow = await read(table, { pk, from, to });
  return { status: 200, body: { ...empty, rows: window.rows.map(rowOf), moreBefore: window.moreBefore, moreAfter: window.moreAfter } };
}

/** Decided by the principal and the key alone, before any read. */
function mayRead(principal: Principal, index: string, pk: string): boolean {
  if (principal.kind === 'staff') return true;
  if (index !== 'table') return false; // GSI1 serves staff-only fields (by email, status, SKU)
  if (pk === CATALOG_PK) return true;
  const own = ownCustomerId(principal);
  if (own === undefined) return false;
  if (customerKeys.idOf(pk) === own) return true;
  // An idempotency record's partition names its customer: IDEMPOTENCY#<customerId>#<key>.
  return idempotencyEntity.templates.PK.parse(pk)?.customerId === own;
}

/** A partition a customer may see only if it turns out to be theirs: an order's. */
function mayReadAfterwards(principal: Principal, index: string, pk: string): boolean {
  return principal.kind === 'customer' && index === 'table' && orderHeaderEntity.templates.PK.claims(pk);
}

function rowOf(item: Item): PartitionRow {
  const attributes: Record<string, string> = {};
  const keys = `${String(item.PK)} ${String(item.SK)}`;
  for (const [name, value] of Object.entries(item)) {
    if (KEY_ATTRIBUTES.has(name)) continue;
    if (Object.keys(attributes).length >= SHOWN_ATTRIBUTES) break;
    const text = shown(value);
    // An attribute the keys already show (an id, a date) says nothing new: the next one is shown instead.
    if (text.length >= 2 && keys.includes(text)) continue;
    attributes[name] = text;
  }
  return {
    PK: String(item.PK),
    SK: String(item.SK),
    ...(typeof item.GSI1PK === 'string' ? { GSI1PK: item.GSI1PK } : {}),
    ...(typeof item.GSI1SK === 'string' ? { GSI1SK: item.GSI1SK } : {}),
    type: typeof item.type === 'string' ? item.type : null,
    entity: entityOf(item)?.name ?? null,
    attributes,
  };
}

function shown(value: unknown): string {
  const text = value instanceof Set ? [...value].join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}
