/**
 * Capacity of transactions. Transactions cost twice the plain operation: a write 2 units per KB
 * (ConditionCheck included, charged for the item it checks), a read 2 units per 4 KB; index
 * entries written or removed by a write are charged to their index. `consumedCapacity` sums the
 * actions per table into Amazon's ConsumedCapacity list for TOTAL or INDEXES. Pure functions.
 */
import { db, type Item } from './dynalite-internals';

export interface TableCapacity {
  table: number;
  globalIndexes: Map<string, number>;
  localIndexes: Map<string, number>;
}

export function emptyTableCapacity(): TableCapacity {
  return { table: 0, globalIndexes: new Map(), localIndexes: new Map() };
}

export function sizeOf(item: Item | undefined): number {
  if (!item) return 0;
  // An INCLUDE projection leaves the attributes an item lacks as undefined entries.
  const present = Object.fromEntries(Object.entries(item).filter(([, value]) => value != null));
  return db.itemSize(present);
}

export function writeUnits(bytes: number): number {
  return 2 * Math.max(1, Math.ceil(bytes / 1024));
}

export /** Amazon's ConsumedCapacity list (one entry per table) for TOTAL or INDEXES, else undefined. */
function consumedCapacity(
  mode: string | undefined,
  unitsMember: 'ReadCapacityUnits' | 'WriteCapacityUnits',
  perAction: { tableName: string; capacity: TableCapacity }[],
): unknown[] | undefined {
  if (mode !== 'TOTAL' && mode !== 'INDEXES') return undefined;
  const byTable = new Map<string, TableCapacity>();
  for (const { tableName, capacity } of perAction) {
    const sum = byTable.get(tableName) ?? emptyTableCapacity();
    sum.table += capacity.table;
    for (const [from, to] of [
      [capacity.globalIndexes, sum.globalIndexes],
      [capacity.localIndexes, sum.localIndexes],
    ] as const) {
      for (const [name, units] of from) to.set(name, (to.get(name) ?? 0) + units);
    }
    byTable.set(tableName, sum);
  }
  const units = (n: number) => ({ CapacityUnits: n, [unitsMember]: n });
  const indexUnits = (indexes: Map<string, number>) => Object.fromEntries([...indexes].map(([name, n]) => [name, units(n)]));
  return [...byTable].map(([tableName, sum]) => {
    const total = sum.table + [...sum.globalIndexes.values(), ...sum.localIndexes.values()].reduce((a, b) => a + b, 0);
    const entry: Record<string, unknown> = { TableName: tableName, ...units(total) };
    if (mode === 'INDEXES') {
      entry.Table = units(sum.table);
      if (sum.globalIndexes.size) entry.GlobalSecondaryIndexes = indexUnits(sum.globalIndexes);
      if (sum.localIndexes.size) entry.LocalSecondaryIndexes = indexUnits(sum.localIndexes);
    }
    return entry;
  });
}
