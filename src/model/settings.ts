/**
 * The model's settings that come from configuration. The model never reads the environment:
 * src/boot/config.ts reads these (`STATUS_SHARDS`) and the bootstrap (src/boot/bootstrap.ts) builds
 * the table with them (`Table.writeShards`): the model reads the shard count from the table it runs
 * on, and pure builders take it as an argument. Nothing here changes at run time.
 */
import { checkWriteShards, DEFAULT_WRITE_SHARDS } from '../dynamo/table';

/** The shard count of a table that names none (src/dynamo/table.ts): what tests and the docs run on. */
export { DEFAULT_WRITE_SHARDS };

export interface ModelSettings {
  /** How many GSI1 keys each order status is spread over (status-index.ts); all writers and readers must agree. */
  statusShards: number;
}

export const DEFAULT_MODEL_SETTINGS: Readonly<ModelSettings> = Object.freeze({ statusShards: DEFAULT_WRITE_SHARDS });

/** Checks a shard count: an integer 1..64. */
export function checkShardCount(shards: number, name = 'STATUS_SHARDS'): number {
  return checkWriteShards(shards, name);
}
