/**
 * The doctor's analysis, pure and streaming: `TableAnalyzer` takes the table's facts (DescribeTable,
 * or `expectedTableFacts` for data without a table), checks them against `tableDefinition`, then
 * takes items one at a time as a Scan delivers them, attributing each to the model's declared
 * entity (`entityOf`), counting sizes per entity, item collection and GSI1 partition key, and
 * recording issues with their first examples by key order. `report()` turns what it has seen into a
 * `DoctorReport`, and can be called again. It holds counters per key, never the items.
 */
import { DEFAULT_WRITE_SHARDS, type Item } from '../dynamo/table';
import { GSI1, GSI1_PROJECTED_ATTRIBUTES, TTL_ATTRIBUTE, tableDefinition } from '../dynamo/definition';
import { entities, entityOf, itemSize, MAX_ITEM_BYTES, type EntityDeclaration } from '../model';
import { compare, pct, readUnits, round1, round4 } from './doctor-figures';
import {
  DOMINANT_MIN_ITEMS,
  DOMINANT_SHARE,
  LEVELS,
  MESSAGES,
  PARTITION_RCU,
  PARTITION_WCU,
  REPORT_VERSION,
  WARN_ITEM_BYTES,
  type AnalyzeOptions,
  type CollectionStats,
  type DoctorReport,
  type EntityStats,
  type IndexKeyStats,
  type Issue,
  type IssueCode,
  type IssueExample,
  type ItemKey,
  type LargeItem,
  type ScanFacts,
  type TableFacts,
} from './doctor-report';

interface Counter {
  items: number;
  bytes: number;
  largest: number;
}

/** Collects what the doctor needs from items as they stream by; `report` turns it into a `DoctorReport`. */
export class TableAnalyzer {
  private readonly top: number;
  private readonly maxExamples: number;
  private readonly writeShards: number;
  private readonly byEntity = new Map<EntityDeclaration | null, Counter>();
  private readonly byPk = new Map<string, { items: number; bytes: number }>();
  private readonly byGsi1pk = new Map<string, { items: number; bytes: number }>();
  private readonly largest: LargeItem[] = [];
  private readonly found = new Map<IssueCode, { count: number; examples: IssueExample[] }>();
  private items = 0;
  private bytes = 0;
  private gsi1Items = 0;

  constructor(
    private readonly table: TableFacts,
    options: AnalyzeOptions = {},
  ) {
    this.top = options.top ?? 10;
    this.maxExamples = options.maxExamples ?? 20;
    this.writeShards = options.writeShards ?? DEFAULT_WRITE_SHARDS;
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
    // Idempotency records and outbox events must expire: without a numeric TTL one stays forever.
    if (entity.expires && typeof item[TTL_ATTRIBUTE] !== 'number') {
      this.issue('TTL_MISSING', { entity: name, key, detail: `${TTL_ATTRIBUTE} = ${JSON.stringify(item[TTL_ATTRIBUTE] ?? null)}` });
    }
    if (entity.requiresGsi1 && !hasGsi1) {
      const missing = ['GSI1PK', 'GSI1SK'].filter((attribute) => typeof item[attribute] !== 'string' || item[attribute] === '');
      this.issue('MISSING_GSI1_KEYS', { entity: name, key, detail: `missing ${missing.join(' and ')}` });
    }
    const expected = hasGsi1 ? entity.gsi1Of?.(item, { writeShards: this.writeShards }) : undefined;
    if (expected && (expected.GSI1PK !== item.GSI1PK || expected.GSI1SK !== item.GSI1SK)) {
      this.issue('STALE_GSI1_KEYS', {
        entity: name,
        key,
        detail: `GSI1PK = ${JSON.stringify(item.GSI1PK)}, expected ${JSON.stringify(expected.GSI1PK)}`,
      });
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
        return {
          PK,
          items,
          bytes,
          share: round4(items / Math.max(1, this.items)),
          fullReadRCU,
          fullReadsPerSecondAtLimit: round1(PARTITION_RCU / fullReadRCU),
        };
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
      this.issue(
        'DOMINANT_COLLECTION',
        { entity: null, PK: top.PK, detail: `${top.items} of ${this.items} items (${pct(top.share)})` },
        found,
      );
    }
    const topKey = largestIndexKeys[0];
    if (topKey && this.gsi1Items >= DOMINANT_MIN_ITEMS && topKey.share >= DOMINANT_SHARE) {
      this.issue(
        'HOT_INDEX_KEY',
        { entity: null, GSI1PK: topKey.GSI1PK, detail: `${topKey.items} of ${this.gsi1Items} index items (${pct(topKey.share)})` },
        found,
      );
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
      totals: {
        items: this.items,
        bytes: this.bytes,
        collections: this.byPk.size,
        gsi1Items: this.gsi1Items,
        gsi1Keys: this.byGsi1pk.size,
      },
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
      this.issue('LSI_PRESENT', {
        entity: null,
        detail: `${lsi.name}: ${lsi.partitionKey} / ${lsi.sortKey}, projection ${lsi.projection.type}`,
      });
    }
    const gsi1 = this.table.gsis.find((index) => index.name === GSI1);
    if (!gsi1)
      this.issue('GSI1_MISSING', { entity: null, detail: `indexes: ${this.table.gsis.map((index) => index.name).join(', ') || 'none'}` });
    else {
      const expected = tableDefinition(this.table.name).GlobalSecondaryIndexes?.find((index) => index.IndexName === GSI1);
      const expectedType = expected?.Projection?.ProjectionType ?? 'INCLUDE';
      const expectedAttributes = [...(expected?.Projection?.NonKeyAttributes ?? GSI1_PROJECTED_ATTRIBUTES)].sort();
      const actual = [...gsi1.projection.attributes].sort();
      if (gsi1.projection.type !== expectedType || actual.join() !== expectedAttributes.join()) {
        this.issue('GSI1_PROJECTION_DIFFERS', {
          entity: null,
          detail: `${gsi1.projection.type} (${actual.join(', ')}), expected ${expectedType} (${expectedAttributes.join(', ')})`,
        });
      }
    }
    if ((this.table.ttl.status !== 'ENABLED' && this.table.ttl.status !== 'ENABLING') || this.table.ttl.attribute !== TTL_ATTRIBUTE) {
      this.issue('TTL_NOT_ENABLED', {
        entity: null,
        detail: `TTL ${this.table.ttl.status}${this.table.ttl.attribute ? ` on ${this.table.ttl.attribute}` : ''}`,
      });
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

function isLarger(a: LargeItem, b: LargeItem): boolean {
  return a.bytes > b.bytes || (a.bytes === b.bytes && compare(`${a.key.PK}\u0000${a.key.SK}`, `${b.key.PK}\u0000${b.key.SK}`) < 0);
}
