/**
 * The table doctor: a full parallel Scan that checks every item against the model's own entity
 * declarations (src/model, `entityOf`) and DescribeTable against the design, and reports sizes,
 * the largest items and item collections, where the partitions are most likely to run hot, and
 * every problem found. `npm run doctor` (src/scripts/doctor.ts) is its command line; its exit code
 * is non-zero when the report holds an error, so it can gate a deploy.
 *
 * Errors (the data or the table breaks the design):
 * - UNKNOWN_ENTITY: an item whose keys no declared entity claims;
 * - TTL_ON_NON_EXPIRING: the TTL attribute on an entity that must never expire (DynamoDB would
 *   silently delete it one day);
 * - STALE_GSI1_KEYS: GSI1 keys that differ from what the item's own attributes call for
 *   (`gsi1Of`), e.g. a status key of an old shard count: the item sits under the wrong index key;
 * - MISSING_GSI1_KEYS: an entity that needs GSI1 keys (`requiresGsi1`) without both of them, so it
 *   is invisible to its index access pattern;
 * - ITEM_OVER_LIMIT: an item above DynamoDB's 400 KB (only possible in data that did not come
 *   from DynamoDB, e.g. an export or a migration's output: DynamoDB refuses to store one);
 * - LSI_PRESENT: a local secondary index (it can only be made with the table and never removed,
 *   and it caps every item collection at 10 GB); GSI1_MISSING: the index the model reads is absent.
 * Warnings (worth a look, never a failed gate):
 * - ITEM_NEAR_LIMIT: an item above 300 KB; UNEXPECTED_GSI1_KEYS: GSI1 keys on an entity that
 *   declares none (it widens the index copy); TYPE_MISMATCH: `type` disagrees with the keys;
 * - GSI1_PROJECTION_DIFFERS, TTL_NOT_ENABLED: the table differs from `tableDefinition`;
 * - HOT_INDEX_KEY / DOMINANT_COLLECTION: one GSI1 partition key, or one item collection, holds
 *   half or more of all the index's (the table's) items, in a table of 1,000 items or more.
 *
 * What a Scan can and cannot say about heat. DynamoDB serves each partition key from one partition
 * (an item collection larger than 10 GB, or a hot one, may be split by sort key, but never below
 * one key's items), and a partition serves at most 3,000 RCU and 1,000 WCU per second. A Scan sees
 * what is stored, never the traffic, so the doctor reports the figures that size-driven heat follows
 * and leaves the traffic to CloudWatch (or `CloudWatch Contributor Insights`):
 * - for a collection: its items and bytes, and what reading it whole would cost (`fullReadRCU`,
 *   eventually consistent: bytes / 4 KB / 2), i.e. how few full reads per second reach 3,000 RCU.
 *   The model's reads of a customer collection are bounded by `Limit`, so a big collection is a
 *   risk only to unbounded readers (exports, scans by PK, a new access pattern);
 * - for a GSI1 partition key: its share of all index items and the WCU one index write costs
 *   (from the projected size), hence the index write rate at which that key alone reaches
 *   1,000 WCU *if writes were spread over keys like the stored items are*. That assumption is the
 *   weak point: a status every order passes through (PENDING) takes a far larger share of writes
 *   than of stored items, and a status nobody leaves (DELIVERED) the opposite. Read it as "how
 *   concentrated the index is", not as a traffic measurement.
 */
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type TableDescription,
  type TimeToLiveDescription,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item, Table } from '../dynamo/table';
import { GSI1, GSI1_PROJECTED_ATTRIBUTES, TTL_ATTRIBUTE, tableDefinition } from '../dynamo/definition';
import { entities, entityOf, itemSize, MAX_ITEM_BYTES, type EntityDeclaration } from '../model';
import { parallelScan } from './parallel-scan';
import { progressBar } from './progress';
import { progressCounter } from './progress-counter';

export const REPORT_VERSION = 1;
/** Items above this size are a warning; above `MAX_ITEM_BYTES` (400 KB) an error. */
export const WARN_ITEM_BYTES = 300 * 1024;
/** Per-partition ceilings of DynamoDB. */
export const PARTITION_RCU = 3000;
export const PARTITION_WCU = 1000;
/** A single key holding this share of the items (of a table or index this large) is a warning. */
export const DOMINANT_SHARE = 0.5;
export const DOMINANT_MIN_ITEMS = 1000;

export type Level = 'error' | 'warning';
export type IssueCode =
  | 'UNKNOWN_ENTITY'
  | 'TTL_ON_NON_EXPIRING'
  | 'MISSING_GSI1_KEYS'
  | 'STALE_GSI1_KEYS'
  | 'ITEM_OVER_LIMIT'
  | 'ITEM_NEAR_LIMIT'
  | 'UNEXPECTED_GSI1_KEYS'
  | 'TYPE_MISMATCH'
  | 'LSI_PRESENT'
  | 'GSI1_MISSING'
  | 'GSI1_PROJECTION_DIFFERS'
  | 'TTL_NOT_ENABLED'
  | 'HOT_INDEX_KEY'
  | 'DOMINANT_COLLECTION';

const LEVELS: Record<IssueCode, Level> = {
  UNKNOWN_ENTITY: 'error',
  TTL_ON_NON_EXPIRING: 'error',
  MISSING_GSI1_KEYS: 'error',
  STALE_GSI1_KEYS: 'error',
  ITEM_OVER_LIMIT: 'error',
  LSI_PRESENT: 'error',
  GSI1_MISSING: 'error',
  ITEM_NEAR_LIMIT: 'warning',
  UNEXPECTED_GSI1_KEYS: 'warning',
  TYPE_MISMATCH: 'warning',
  GSI1_PROJECTION_DIFFERS: 'warning',
  TTL_NOT_ENABLED: 'warning',
  HOT_INDEX_KEY: 'warning',
  DOMINANT_COLLECTION: 'warning',
};

const MESSAGES: Record<IssueCode, string> = {
  UNKNOWN_ENTITY: 'items whose keys no declared entity claims',
  TTL_ON_NON_EXPIRING: `items carrying the TTL attribute ${TTL_ATTRIBUTE} on an entity that must never expire (DynamoDB would delete them)`,
  MISSING_GSI1_KEYS: 'items without the GSI1 keys their entity needs (invisible to its index access pattern)',
  STALE_GSI1_KEYS: 'items whose GSI1 keys differ from those their own attributes call for (read under the wrong key: an old layout, e.g. another STATUS_SHARDS; migration 0002 rewrites status keys)',
  ITEM_OVER_LIMIT: `items larger than DynamoDB's ${MAX_ITEM_BYTES / 1024} KB item limit`,
  ITEM_NEAR_LIMIT: `items larger than ${WARN_ITEM_BYTES / 1024} KB, close to the ${MAX_ITEM_BYTES / 1024} KB limit`,
  UNEXPECTED_GSI1_KEYS: 'GSI1 keys on an entity that declares none (they widen the index copy)',
  TYPE_MISMATCH: 'items whose type attribute disagrees with the entity their keys belong to',
  LSI_PRESENT: 'local secondary indexes on the table (never removable; they cap item collections at 10 GB)',
  GSI1_MISSING: `the table has no ${GSI1}, which the model's index access patterns read`,
  GSI1_PROJECTION_DIFFERS: `${GSI1} projects other attributes than the table definition`,
  TTL_NOT_ENABLED: `TTL is not enabled on ${TTL_ATTRIBUTE}, so idempotency records never expire`,
  HOT_INDEX_KEY: `one ${GSI1} partition key holds ${DOMINANT_SHARE * 100}% or more of the index's items`,
  DOMINANT_COLLECTION: `one item collection holds ${DOMINANT_SHARE * 100}% or more of the table's items`,
};

export interface ItemKey {
  PK: string;
  SK: string;
}

export interface IssueExample {
  /** The entity the keys belong to; null when none claims them (or for table-level issues). */
  entity: string | null;
  key?: ItemKey;
  /** For collection issues: the partition key. */
  PK?: string;
  /** For index-key issues. */
  GSI1PK?: string;
  bytes?: number;
  detail?: string;
}

export interface Issue {
  code: IssueCode;
  level: Level;
  message: string;
  /** Occurrences (items, indexes, keys). */
  count: number;
  /** Up to `maxExamples`, the first by key order, so the report is stable. */
  examples: IssueExample[];
}

export interface EntityStats {
  name: string;
  type: string | null;
  items: number;
  bytes: number;
  averageBytes: number;
  largestBytes: number;
}

export interface LargeItem {
  entity: string | null;
  key: ItemKey;
  bytes: number;
  percentOfLimit: number;
}

export interface CollectionStats {
  PK: string;
  items: number;
  bytes: number;
  /** Share of all the table's items. */
  share: number;
  /** RCU of one eventually consistent Query that reads the whole collection. */
  fullReadRCU: number;
  /** Such full reads per second that reach a partition's 3,000 RCU. */
  fullReadsPerSecondAtLimit: number;
}

export interface IndexKeyStats {
  GSI1PK: string;
  items: number;
  /** Bytes of the index copy (keys and projected attributes). */
  bytes: number;
  /** Share of all the index's items. */
  share: number;
  /** WCU of one write of an average item of this key, on the index. */
  wcuPerWrite: number;
  /** Writes per second to this key that reach a partition's 1,000 WCU. */
  keyWritesPerSecondAtLimit: number;
  /** Index writes per second, table-wide, at which this key reaches 1,000 WCU if writes follow the stored share. */
  indexWritesPerSecondAtLimit: number;
  fullReadRCU: number;
}

export interface IndexFacts {
  name: string;
  partitionKey: string | null;
  sortKey: string | null;
  projection: { type: string; attributes: string[] };
  status: string | null;
}

export interface TableFacts {
  name: string;
  status: string | null;
  billingMode: string | null;
  /** DescribeTable's ItemCount (Amazon refreshes it about every six hours). */
  itemCount: number | null;
  keySchema: { partitionKey: string | null; sortKey: string | null };
  gsis: IndexFacts[];
  lsis: IndexFacts[];
  ttl: { attribute: string | null; status: string };
}

export interface ScanFacts {
  segments: number;
  requests: number;
  /** Items returned (and scanned: no filter is applied). */
  items: number;
  /** Read capacity units the engine reported for the Scan. */
  consumedRCU: number;
  seconds: number;
}

export interface DoctorReport {
  report: 'table-doctor';
  version: number;
  table: TableFacts;
  scan: ScanFacts | null;
  totals: { items: number; bytes: number; collections: number; gsi1Items: number; gsi1Keys: number };
  entities: EntityStats[];
  largestItems: LargeItem[];
  largestCollections: CollectionStats[];
  largestIndexKeys: IndexKeyStats[];
  issues: Issue[];
  summary: { errors: number; warnings: number; exitCode: 0 | 1 };
}

export interface AnalyzeOptions {
  /** Entries in each "largest" list. Default 10. */
  top?: number;
  /** Examples kept per issue. Default 20. */
  maxExamples?: number;
}

// ---- the analysis (pure) -----------------------------------------------------------------------

interface Counter { items: number; bytes: number; largest: number }

/** Collects what the doctor needs from items as they stream by; `report` turns it into a `DoctorReport`. */
export class TableAnalyzer {
  private readonly top: number;
  private readonly maxExamples: number;
  private readonly byEntity = new Map<EntityDeclaration | null, Counter>();
  private readonly byPk = new Map<string, { items: number; bytes: number }>();
  private readonly byGsi1pk = new Map<string, { items: number; bytes: number }>();
  private readonly largest: LargeItem[] = [];
  private readonly found = new Map<IssueCode, { count: number; examples: IssueExample[] }>();
  private items = 0;
  private bytes = 0;
  private gsi1Items = 0;

  constructor(private readonly table: TableFacts, options: AnalyzeOptions = {}) {
    this.top = options.top ?? 10;
    this.maxExamples = options.maxExamples ?? 20;
    for (const entity of entities()) this.byEntity.set(entity, { items: 0, bytes: 0, largest: 0 });
    this.checkTable();
  }

  add(item: Item): void {
    const size = itemSize(item);
    const entity = entityOf(item) ?? null;
    const key: ItemKey = { PK: String(item.PK), SK: String(item.SK) };
    const name = entity?.name ?? null;
    this.items += 1;
    this.bytes += size;

    const counter = this.byEntity.get(entity) ?? this.byEntity.set(entity, { items: 0, bytes: 0, largest: 0 }).get(entity)!;
    counter.items += 1;
    counter.bytes += size;
    counter.largest = Math.max(counter.largest, size);

    const collection = this.byPk.get(key.PK);
    if (collection) {
      collection.items += 1;
      collection.bytes += size;
    } else this.byPk.set(key.PK, { items: 1, bytes: size });

    this.keepLargest({ entity: name, key, bytes: size, percentOfLimit: round1((100 * size) / MAX_ITEM_BYTES) });
    if (size > MAX_ITEM_BYTES) this.issue('ITEM_OVER_LIMIT', { entity: name, key, bytes: size });
    else if (size > WARN_ITEM_BYTES) this.issue('ITEM_NEAR_LIMIT', { entity: name, key, bytes: size });

    const hasGsi1 = typeof item.GSI1PK === 'string' && item.GSI1PK !== '' && typeof item.GSI1SK === 'string' && item.GSI1SK !== '';
    if (hasGsi1) {
      const gsi1pk = item.GSI1PK as string;
      const projected = this.projectedSize(item);
      this.gsi1Items += 1;
      const indexKey = this.byGsi1pk.get(gsi1pk);
      if (indexKey) {
        indexKey.items += 1;
        indexKey.bytes += projected;
      } else this.byGsi1pk.set(gsi1pk, { items: 1, bytes: projected });
    }

    if (!entity) {
      this.issue('UNKNOWN_ENTITY', { entity: null, key });
      return;
    }
    if (item[TTL_ATTRIBUTE] !== undefined && !entity.expires) {
      this.issue('TTL_ON_NON_EXPIRING', { entity: name, key, detail: `${TTL_ATTRIBUTE} = ${JSON.stringify(item[TTL_ATTRIBUTE])}` });
    }
    if (entity.requiresGsi1 && !hasGsi1) {
      const missing = ['GSI1PK', 'GSI1SK'].filter((attribute) => typeof item[attribute] !== 'string' || item[attribute] === '');
      this.issue('MISSING_GSI1_KEYS', { entity: name, key, detail: `missing ${missing.join(' and ')}` });
    }
    const expected = hasGsi1 ? entity.gsi1Of?.(item) : undefined;
    if (expected && (expected.GSI1PK !== item.GSI1PK || expected.GSI1SK !== item.GSI1SK)) {
      this.issue('STALE_GSI1_KEYS', { entity: name, key, detail: `GSI1PK = ${JSON.stringify(item.GSI1PK)}, expected ${JSON.stringify(expected.GSI1PK)}` });
    }
    if (!entity.requiresGsi1 && !entity.keys.GSI1PK && (item.GSI1PK !== undefined || item.GSI1SK !== undefined)) {
      this.issue('UNEXPECTED_GSI1_KEYS', { entity: name, key, detail: `GSI1PK = ${JSON.stringify(item.GSI1PK)}` });
    }
    if (item.type !== entity.type) {
      this.issue('TYPE_MISMATCH', { entity: name, key, detail: `type = ${JSON.stringify(item.type)}, expected ${entity.type}` });
    }
  }

  report(scan: ScanFacts | null = null): DoctorReport {
    const largestCollections = [...this.byPk.entries()]
      .sort(([pkA, a], [pkB, b]) => b.bytes - a.bytes || b.items - a.items || compare(pkA, pkB))
      .slice(0, this.top)
      .map(([PK, { items, bytes }]): CollectionStats => {
        const fullReadRCU = readUnits(bytes);
        return { PK, items, bytes, share: round4(items / Math.max(1, this.items)), fullReadRCU, fullReadsPerSecondAtLimit: round1(PARTITION_RCU / fullReadRCU) };
      });
    const largestIndexKeys = [...this.byGsi1pk.entries()]
      .sort(([pkA, a], [pkB, b]) => b.items - a.items || b.bytes - a.bytes || compare(pkA, pkB))
      .slice(0, this.top)
      .map(([GSI1PK, { items, bytes }]): IndexKeyStats => {
        const share = items / Math.max(1, this.gsi1Items);
        const wcuPerWrite = Math.max(1, Math.ceil(bytes / items / 1024));
        const keyWritesPerSecondAtLimit = PARTITION_WCU / wcuPerWrite;
        return {
          GSI1PK,
          items,
          bytes,
          share: round4(share),
          wcuPerWrite,
          keyWritesPerSecondAtLimit,
          indexWritesPerSecondAtLimit: Math.round(keyWritesPerSecondAtLimit / share),
          fullReadRCU: readUnits(bytes),
        };
      });

    // Issues about the whole table go into a copy, so `report` can be called again.
    const found = new Map([...this.found].map(([code, entry]) => [code, { count: entry.count, examples: [...entry.examples] }]));
    const top = largestCollections[0];
    if (top && this.items >= DOMINANT_MIN_ITEMS && top.share >= DOMINANT_SHARE) {
      this.issue('DOMINANT_COLLECTION', { entity: null, PK: top.PK, detail: `${top.items} of ${this.items} items (${pct(top.share)})` }, found);
    }
    const topKey = largestIndexKeys[0];
    if (topKey && this.gsi1Items >= DOMINANT_MIN_ITEMS && topKey.share >= DOMINANT_SHARE) {
      this.issue('HOT_INDEX_KEY', { entity: null, GSI1PK: topKey.GSI1PK, detail: `${topKey.items} of ${this.gsi1Items} index items (${pct(topKey.share)})` }, found);
    }

    const entityStats: EntityStats[] = [];
    for (const [entity, counter] of this.byEntity) {
      if (!entity && counter.items === 0) continue;
      entityStats.push({
        name: entity?.name ?? '(unknown)',
        type: entity?.type ?? null,
        items: counter.items,
        bytes: counter.bytes,
        averageBytes: counter.items ? Math.round(counter.bytes / counter.items) : 0,
        largestBytes: counter.largest,
      });
    }
    const issues = [...found.entries()]
      .map(([code, { count, examples }]): Issue => ({ code, level: LEVELS[code], message: MESSAGES[code], count, examples }))
      .sort((a, b) => (a.level === b.level ? compare(a.code, b.code) : a.level === 'error' ? -1 : 1));
    const errors = issues.filter((issue) => issue.level === 'error').reduce((n, issue) => n + issue.count, 0);
    const warnings = issues.filter((issue) => issue.level === 'warning').reduce((n, issue) => n + issue.count, 0);
    return {
      report: 'table-doctor',
      version: REPORT_VERSION,
      table: this.table,
      scan,
      totals: { items: this.items, bytes: this.bytes, collections: this.byPk.size, gsi1Items: this.gsi1Items, gsi1Keys: this.byGsi1pk.size },
      entities: entityStats,
      largestItems: [...this.largest],
      largestCollections,
      largestIndexKeys,
      issues,
      summary: { errors, warnings, exitCode: errors > 0 ? 1 : 0 },
    };
  }

  private checkTable(): void {
    for (const lsi of this.table.lsis) {
      this.issue('LSI_PRESENT', { entity: null, detail: `${lsi.name}: ${lsi.partitionKey} / ${lsi.sortKey}, projection ${lsi.projection.type}` });
    }
    const gsi1 = this.table.gsis.find((index) => index.name === GSI1);
    if (!gsi1) this.issue('GSI1_MISSING', { entity: null, detail: `indexes: ${this.table.gsis.map((index) => index.name).join(', ') || 'none'}` });
    else {
      const expected = tableDefinition(this.table.name).GlobalSecondaryIndexes?.find((index) => index.IndexName === GSI1);
      const expectedType = expected?.Projection?.ProjectionType ?? 'INCLUDE';
      const expectedAttributes = [...(expected?.Projection?.NonKeyAttributes ?? GSI1_PROJECTED_ATTRIBUTES)].sort();
      const actual = [...gsi1.projection.attributes].sort();
      if (gsi1.projection.type !== expectedType || actual.join() !== expectedAttributes.join()) {
        this.issue('GSI1_PROJECTION_DIFFERS', { entity: null, detail: `${gsi1.projection.type} (${actual.join(', ')}), expected ${expectedType} (${expectedAttributes.join(', ')})` });
      }
    }
    if (this.table.ttl.status !== 'ENABLED' && this.table.ttl.status !== 'ENABLING' || this.table.ttl.attribute !== TTL_ATTRIBUTE) {
      this.issue('TTL_NOT_ENABLED', { entity: null, detail: `TTL ${this.table.ttl.status}${this.table.ttl.attribute ? ` on ${this.table.ttl.attribute}` : ''}` });
    }
  }

  /** The size of an item's copy in GSI1: its keys and the attributes the index projects. */
  private projectedSize(item: Item): number {
    const gsi1 = this.table.gsis.find((index) => index.name === GSI1);
    if (!gsi1 || gsi1.projection.type === 'ALL') return itemSize(item);
    const kept: Item = { PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK };
    if (gsi1.projection.type === 'INCLUDE') for (const attribute of gsi1.projection.attributes) kept[attribute] = item[attribute];
    return itemSize(kept);
  }

  private keepLargest(entry: LargeItem): void {
    const list = this.largest;
    if (list.length >= this.top && !isLarger(entry, list[list.length - 1]!)) return;
    let at = list.length;
    while (at > 0 && isLarger(entry, list[at - 1]!)) at--;
    list.splice(at, 0, entry);
    if (list.length > this.top) list.pop();
  }

  private issue(code: IssueCode, example: IssueExample, found = this.found): void {
    const entry = found.get(code) ?? found.set(code, { count: 0, examples: [] }).get(code)!;
    entry.count += 1;
    // Keep the first examples by key order, whatever order the segments delivered them in.
    const list = entry.examples;
    const order = (e: IssueExample) => `${e.key?.PK ?? e.PK ?? e.GSI1PK ?? ''}\u0000${e.key?.SK ?? ''}\u0000${e.detail ?? ''}`;
    if (list.length >= this.maxExamples && compare(order(example), order(list[list.length - 1]!)) >= 0) return;
    let at = list.length;
    while (at > 0 && compare(order(example), order(list[at - 1]!)) < 0) at--;
    list.splice(at, 0, example);
    if (list.length > this.maxExamples) list.pop();
  }
}

/** The report of a set of items (no table needed): for tests, exports and migration outputs. */
export function diagnose(items: Iterable<Item>, table: TableFacts = expectedTableFacts('app'), options: AnalyzeOptions = {}): DoctorReport {
  const analyzer = new TableAnalyzer(table, options);
  for (const item of items) analyzer.add(item);
  return analyzer.report();
}

/** The facts of a table exactly as `tableDefinition` and `ensureTable` make it. */
export function expectedTableFacts(name: string): TableFacts {
  const definition = tableDefinition(name);
  return tableFactsOf({ ...definition, TableStatus: 'ACTIVE', BillingModeSummary: { BillingMode: definition.BillingMode } } as TableDescription, {
    AttributeName: TTL_ATTRIBUTE,
    TimeToLiveStatus: 'ENABLED',
  });
}

export function tableFactsOf(description: TableDescription, ttl: TimeToLiveDescription | undefined): TableFacts {
  const keyOf = (schema: TableDescription['KeySchema'], type: 'HASH' | 'RANGE') => schema?.find((element) => element.KeyType === type)?.AttributeName ?? null;
  const index = (i: { IndexName?: string; KeySchema?: TableDescription['KeySchema']; Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] }; IndexStatus?: string }): IndexFacts => ({
    name: i.IndexName ?? '',
    partitionKey: keyOf(i.KeySchema, 'HASH'),
    sortKey: keyOf(i.KeySchema, 'RANGE'),
    projection: { type: i.Projection?.ProjectionType ?? 'ALL', attributes: [...(i.Projection?.NonKeyAttributes ?? [])] },
    status: i.IndexStatus ?? null,
  });
  return {
    name: description.TableName ?? '',
    status: description.TableStatus ?? null,
    billingMode: description.BillingModeSummary?.BillingMode ?? (description.ProvisionedThroughput?.ReadCapacityUnits ? 'PROVISIONED' : null),
    itemCount: description.ItemCount ?? null,
    keySchema: { partitionKey: keyOf(description.KeySchema, 'HASH'), sortKey: keyOf(description.KeySchema, 'RANGE') },
    gsis: (description.GlobalSecondaryIndexes ?? []).map(index),
    lsis: (description.LocalSecondaryIndexes ?? []).map(index),
    ttl: { attribute: ttl?.AttributeName ?? null, status: ttl?.TimeToLiveStatus ?? 'DISABLED' },
  };
}

// ---- against a table ---------------------------------------------------------------------------

/** The table (its name, for the Scan) and the document client (for DescribeTable): a `Connection` or a test `Stack`. */
export interface DoctorTarget {
  table: Table;
  doc: DynamoDBDocumentClient;
}

export interface DoctorOptions extends AnalyzeOptions {
  /** Parallel Scan segments. Default 4. */
  segments?: number;
  /** Show a progress bar on stderr (only when it is a terminal). Default false. */
  progress?: boolean;
}

export async function doctor(target: DoctorTarget, options: DoctorOptions = {}): Promise<DoctorReport> {
  const segments = options.segments ?? 4;
  if (!Number.isInteger(segments) || segments < 1 || segments > 1_000_000) throw new RangeError(`segments must be an integer 1..1000000, got ${segments}`);
  const name = target.table.name;
  const [{ Table: description }, ttl] = await Promise.all([
    target.doc.send(new DescribeTableCommand({ TableName: name })),
    // Without dynamodb:DescribeTimeToLive the doctor still runs; the TTL shows as unknown (a warning).
    target.doc.send(new DescribeTimeToLiveCommand({ TableName: name })).then(
      (out): TimeToLiveDescription => out.TimeToLiveDescription ?? { TimeToLiveStatus: 'DISABLED' },
      (error: unknown): TimeToLiveDescription => ({ TimeToLiveStatus: `UNKNOWN (${(error as Error).name})` as TimeToLiveDescription['TimeToLiveStatus'] }),
    ),
  ]);
  if (!description) throw new Error(`DescribeTable ${name} returned no table`);
  const analyzer = new TableAnalyzer(tableFactsOf(description, ttl), options);

  // DescribeTable's ItemCount is an estimate (Amazon refreshes it about every six hours; the
  // embedded engine says 0): a bar against it when there is one, a running count otherwise.
  const bar = description.ItemCount
    ? progressBar('doctor', description.ItemCount, { quiet: !options.progress })
    : progressCounter('doctor: scanned', 'items', { quiet: !options.progress });
  const started = performance.now();
  try {
    const totals = await parallelScan(target.table, {
      segments,
      onPage: ({ items }) => {
        for (const item of items) analyzer.add(item);
        bar.increment(items.length);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    return analyzer.report({ segments, requests: totals.requests, items: totals.items, consumedRCU: round1(totals.capacity), seconds: round1(seconds) });
  } finally {
    bar.stop();
  }
}

// ---- rendering ---------------------------------------------------------------------------------

/** The report for humans: tables, the heat figures and how to read them, then the issues. */
export function renderReport(report: DoctorReport, where?: string): string {
  const lines: string[] = [];
  const t = report.table;
  lines.push(`Table ${t.name}${where ? ` at ${where}` : ''}: ${t.status ?? '?'}, ${t.billingMode ?? 'billing mode unknown'}, keys ${t.keySchema.partitionKey} / ${t.keySchema.sortKey}`);
  for (const gsi of t.gsis) lines.push(`  GSI ${gsi.name}: ${gsi.partitionKey} / ${gsi.sortKey}, projection ${projectionText(gsi)}${gsi.status ? `, ${gsi.status}` : ''}`);
  if (t.gsis.length === 0) lines.push('  GSI: none');
  for (const lsi of t.lsis) lines.push(`  LSI ${lsi.name}: ${lsi.partitionKey} / ${lsi.sortKey}, projection ${projectionText(lsi)}  <- error: no LSI belongs here`);
  if (t.lsis.length === 0) lines.push('  LSI: none');
  lines.push(`  TTL: ${t.ttl.status}${t.ttl.attribute ? ` on ${t.ttl.attribute}` : ''}`);
  if (report.scan) {
    const s = report.scan;
    lines.push('', `Scanned ${num(s.items)} items, ${bytes(report.totals.bytes)}, in ${s.seconds.toFixed(1)} s: ${s.segments} segments, ${num(s.requests)} Scan requests, ${num(s.consumedRCU)} RCU consumed`);
  }

  lines.push('', 'Items by entity');
  lines.push(...table(['entity', 'items', 'bytes', 'average', 'largest'], report.entities.map((e) => [e.name, num(e.items), bytes(e.bytes), bytes(e.averageBytes), bytes(e.largestBytes)])));
  lines.push(`  total: ${num(report.totals.items)} items, ${bytes(report.totals.bytes)} in ${num(report.totals.collections)} item collections; ${num(report.totals.gsi1Items)} items in ${GSI1} under ${num(report.totals.gsi1Keys)} keys`);

  lines.push('', `Largest items (limit ${MAX_ITEM_BYTES / 1024} KB; warning above ${WARN_ITEM_BYTES / 1024} KB)`);
  lines.push(...table(['size', 'of limit', 'entity', 'PK', 'SK'], report.largestItems.map((i) => [bytes(i.bytes), `${i.percentOfLimit}%`, i.entity ?? '(unknown)', clip(i.key.PK), clip(i.key.SK)])));

  lines.push('', 'Largest item collections (one partition key each: at most 3,000 RCU and 1,000 WCU per second)');
  lines.push(...table(['PK', 'items', 'bytes', 'share', 'full read', 'full reads/s to 3,000 RCU'], report.largestCollections.map((c) => [clip(c.PK), num(c.items), bytes(c.bytes), pct(c.share), `${num(c.fullReadRCU)} RCU`, num(c.fullReadsPerSecondAtLimit)])));

  lines.push('', `${GSI1} partition keys with the most items`);
  lines.push(...table(['GSI1PK', 'items', 'share', 'WCU/write', 'key writes/s to 1,000 WCU', 'index writes/s to get there*'], report.largestIndexKeys.map((k) => [clip(k.GSI1PK), num(k.items), pct(k.share), String(k.wcuPerWrite), num(k.keyWritesPerSecondAtLimit), num(k.indexWritesPerSecondAtLimit)])));
  lines.push(
    '  How to read these: a Scan sees what is stored, not the traffic. A full read of a collection costs its',
    '  bytes / 4 KB / 2 RCU (eventually consistent), so the table above says how few full reads per second',
    '  reach a partition\'s 3,000 RCU; the model reads customer collections with a Limit, so a big one only',
    '  hurts unbounded readers. *For an index key: the table-wide index write rate at which that key alone',
    '  reaches 1,000 WCU, IF writes were spread over keys like the stored items. They are not: every order',
    '  is written under PENDING first, and nothing leaves DELIVERED, so PENDING shards run hotter and',
    '  DELIVERED shards cooler than their share suggests. Measure the traffic (CloudWatch Contributor',
    '  Insights) before acting on a share.',
  );

  lines.push('', 'Issues');
  if (report.issues.length === 0) lines.push('  none');
  for (const issue of report.issues) {
    lines.push(`  ${issue.level.toUpperCase()} ${issue.code}: ${num(issue.count)} ${issue.message}`);
    for (const e of issue.examples) {
      const where = e.key ? `${e.key.PK} / ${e.key.SK}` : e.PK ? `PK ${e.PK}` : e.GSI1PK ? `GSI1PK ${e.GSI1PK}` : '';
      lines.push(`    ${[e.entity ?? (e.key ? '(unknown entity)' : ''), where, e.bytes !== undefined ? bytes(e.bytes) : '', e.detail ?? ''].filter(Boolean).join('  ')}`);
    }
    if (issue.count > issue.examples.length) lines.push(`    … and ${num(issue.count - issue.examples.length)} more`);
  }
  const { errors, warnings, exitCode } = report.summary;
  lines.push('', `${num(errors)} error${errors === 1 ? '' : 's'}, ${num(warnings)} warning${warnings === 1 ? '' : 's'}: ${exitCode === 0 ? 'healthy' : 'NOT healthy'} (exit ${exitCode})`);
  return lines.join('\n');
}

function projectionText(index: IndexFacts): string {
  return index.projection.type === 'INCLUDE' ? `INCLUDE (${index.projection.attributes.join(', ')})` : index.projection.type;
}

function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return ['  (none)'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  // Columns of figures (with or without a unit) align right, text left.
  const numeric = header.map((_, i) => rows.every((row) => /^[\d.,]+(\s?[A-Za-z%]+)?$/.test(row[i] ?? '')));
  const format = (row: string[]) => `  ${row.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [format(header), ...rows.map(format)];
}

// ---- helpers -----------------------------------------------------------------------------------

function isLarger(a: LargeItem, b: LargeItem): boolean {
  return a.bytes > b.bytes || (a.bytes === b.bytes && compare(`${a.key.PK}\u0000${a.key.SK}`, `${b.key.PK}\u0000${b.key.SK}`) < 0);
}

/** Code-unit order, as DynamoDB orders string keys (for these ASCII keys), and independent of locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function readUnits(size: number): number {
  return Math.max(0.5, Math.ceil(size / 4096) / 2);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function round4(value: number): number {
  return Math.round(value * 10000) / 10000;
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function num(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  if (value < 1024 ** 3) return `${(value / 1024 / 1024).toFixed(1)} MB`;
  return `${(value / 1024 ** 3).toFixed(2)} GB`;
}

function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
