/**
 * The migrations, in the order they apply. A new one is a file `NNNN-what-it-does.ts` exporting
 * `migration` (see migration.ts), added to this list.
 */
import type { Migration } from './migration';
import { migration as m0001 } from './0001-order-lines-by-sku';
import { migration as m0002 } from './0002-status-index-shards';
import { migration as m0003 } from './0003-customer-stats';

export const migrations: readonly Migration[] = [m0001, m0002, m0003];

/** A migration by its full name or its number (`0001`); undefined when none or several match. */
export function findMigration(nameOrNumber: string, list: readonly Migration[] = migrations): Migration | undefined {
  const exact = list.find((migration) => migration.name === nameOrNumber);
  if (exact) return exact;
  const byNumber = /^\d{4}$/.test(nameOrNumber) ? list.filter((migration) => migration.name.startsWith(`${nameOrNumber}-`)) : [];
  return byNumber.length === 1 ? byNumber[0] : undefined;
}

export type { Decision, Migration, Rewrite } from './migration';
export { defineMigration } from './migration';
export { runMigration, type RunOptions, type RunReport } from './runner';
export { migrationStatuses, migrationNeeds, type MigrationStatus, type MigrationNeed } from './probe';
export { RateLimiter, limiterFor, unlimited, type Limiter, type Clock } from './rate-limit';
