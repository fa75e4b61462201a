import { randomUUID } from 'node:crypto';
import type { Table } from './dynamo/table';
import { Meter } from './dynamo/meter';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every resolver of one GraphQL operation shares: the table handle metered for this
 * operation, and loaders whose memo lives exactly as long as the operation.
 */
export interface Context {
  requestId: string;
  table: Table;
  meter: Meter;
  loaders: Loaders;
  /** Whether the response carries `extensions.dynamodb` (the request plan). */
  explain: boolean;
}

export function createContext(baseTable: Table, options: { explain: boolean; requestId?: string | undefined }): Context {
  const meter = new Meter();
  const table = baseTable.withMeter(meter);
  return { requestId: options.requestId ?? randomUUID(), table, meter, loaders: createLoaders(table), explain: options.explain };
}
