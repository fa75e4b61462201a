/**
 * The table doctor's report: its shape (`DoctorReport`, versioned by `REPORT_VERSION`, printed as
 * JSON by `npm run doctor -- --json`), the thresholds it applies, and every issue code with its
 * level (an error fails the gate, a warning never does) and its one-line message. Types and
 * constants only; doctor.ts says what each issue means, doctor-analyzer.ts finds them.
 */
import { GSI1, TTL_ATTRIBUTE } from '../dynamo/definition';
import { MAX_ITEM_BYTES } from '../model';

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
  | 'TTL_MISSING'
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

export const LEVELS: Record<IssueCode, Level> = {
  UNKNOWN_ENTITY: 'error',
  TTL_ON_NON_EXPIRING: 'error',
  TTL_MISSING: 'warning',
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

export const MESSAGES: Record<IssueCode, string> = {
  UNKNOWN_ENTITY: 'items whose keys no declared entity claims',
  TTL_ON_NON_EXPIRING: `items carrying the TTL attribute ${TTL_ATTRIBUTE} on an entity that must never expire (DynamoDB would delete them)`,
  TTL_MISSING: `items of an expiring entity (idempotency records, outbox events) without the TTL attribute ${TTL_ATTRIBUTE}: DynamoDB never deletes them`,
  MISSING_GSI1_KEYS: 'items without the GSI1 keys their entity needs (invisible to its index access pattern)',
  STALE_GSI1_KEYS:
    'items whose GSI1 keys differ from those their own attributes call for (read under the wrong key: an old layout, e.g. another STATUS_SHARDS; migration 0002 rewrites status keys)',
  ITEM_OVER_LIMIT: `items larger than DynamoDB's ${MAX_ITEM_BYTES / 1024} KB item limit`,
  ITEM_NEAR_LIMIT: `items larger than ${WARN_ITEM_BYTES / 1024} KB, close to the ${MAX_ITEM_BYTES / 1024} KB limit`,
  UNEXPECTED_GSI1_KEYS: 'GSI1 keys on an entity that declares none (they widen the index copy)',
  TYPE_MISMATCH: 'items whose type attribute disagrees with the entity their keys belong to',
  LSI_PRESENT: 'local secondary indexes on the table (never removable; they cap item collections at 10 GB)',
  GSI1_MISSING: `the table has no ${GSI1}, which the model's index access patterns read`,
  GSI1_PROJECTION_DIFFERS: `${GSI1} projects other attributes than the table definition`,
  TTL_NOT_ENABLED: `TTL is not enabled on ${TTL_ATTRIBUTE}, so idempotency records and outbox events never expire`,
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
  /**
   * The table's status-index shard count, which the expected GSI1 keys are computed at
   * (`Table.writeShards`; `doctor` passes its table's). Default `DEFAULT_WRITE_SHARDS`.
   */
  writeShards?: number;
}
