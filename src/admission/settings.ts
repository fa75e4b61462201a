/**
 * Admission's settings, apart from its machinery so that src/boot/config.ts (the one reader of
 * the environment) reads them without importing the cost model or graphql-armor.
 */
/**
 * Quotas per principal (per client address when anonymous): token buckets refilled continuously,
 * one for reads (estimated items read, the cost above) and one for writes (items written). A
 * bucket holds one minute's worth, so a client may spend a minute's quota in a burst, then waits.
 */
export interface QuotaSettings {
  /** Read cost units (estimated items read) per minute. */
  readsPerMinute: number;
  /** Items written per minute. */
  writesPerMinute: number;
}

/**
 * Defaults: 60,000 read units a minute is six operations at `maxCost` in a burst (a bucket must
 * hold more than `maxCost`, or an admitted operation could never run), or ~1,500 customer screens
 * (38 units each) a minute: no person needs more, a scraper is held to ~1,000 items a second.
 * 1,000 items written a minute is ten full 96-line orders, or ~160 two-line ones.
 */
export const QUOTA_DEFAULTS: QuotaSettings = { readsPerMinute: 60_000, writesPerMinute: 1_000 };

/** The environment variables that override the defaults (positive integers; src/boot/config.ts reads them). */
export const QUOTA_VARIABLES = {
  QUOTA_READS_PER_MINUTE: 'readsPerMinute',
  QUOTA_WRITES_PER_MINUTE: 'writesPerMinute',
} as const satisfies Record<string, keyof QuotaSettings>;
