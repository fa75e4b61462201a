/**
 * The model's settings that come from configuration. The model never reads the environment:
 * src/boot/config.ts reads these (`STATUS_SHARDS`) and the bootstrap (src/boot/bootstrap.ts) applies them
 * with `configureModel` before anything reads or writes the table. Defaults apply until then
 * (and in tests that do not configure them).
 */
export interface ModelSettings {
  /** How many GSI1 keys each order status is spread over (status-index.ts); all writers and readers must agree. */
  statusShards: number;
}

export const DEFAULT_MODEL_SETTINGS: Readonly<ModelSettings> = Object.freeze({ statusShards: 4 });

/** The status index's shard count in force (a live binding: `configureModel` changes it). */
export let STATUS_SHARDS = DEFAULT_MODEL_SETTINGS.statusShards;

/** Checks a shard count: an integer 1..64. */
export function checkShardCount(shards: number, name = 'STATUS_SHARDS'): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > 64) throw new Error(`${name} must be an integer 1..64, got ${shards}`);
  return shards;
}

/** Applies the configured settings; what is absent keeps its current value. */
export function configureModel(settings: Partial<ModelSettings>): void {
  if (settings.statusShards !== undefined) STATUS_SHARDS = checkShardCount(settings.statusShards);
}
