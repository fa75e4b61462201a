/**
 * 0002: the status index's shard keys, for `ordersByStatus` (src/model/status-index.ts).
 *
 * Touches: order summaries whose `GSI1PK` is not `STATUS#<status>#<shard>` for the shard count of
 * the table migrated (`Table.writeShards`, configured by `STATUS_SHARDS`): summaries written before
 * the index was sharded (`STATUS#<status>`), and every summary whose shard moves when
 * `STATUS_SHARDS` changes. Those are invisible to `ordersByStatus` until rewritten. After changing
 * `STATUS_SHARDS`, deploy every writer and reader with the new value, then run
 * `npm run migrate -- 0002 --force` with it.
 * Rewrite: `SET GSI1PK = STATUS#<status>#<shard>`, on condition that the summary still has the
 * status and the `GSI1PK` it was scanned with (a status move in between wrote the right key itself).
 */
import type { Item } from '../../dynamo/table';
import { checkStatus, orderSummaryEntity, pkOf, statusKeys } from '../../model';
import { defineMigration } from './migration';

function expectedKey(summary: Item, shards: number): string | undefined {
  const { id, status, placedAt } = summary;
  if (typeof id !== 'string' || typeof status !== 'string' || typeof placedAt !== 'string') return undefined;
  try {
    return statusKeys.ofOrder({ id, status: checkStatus(status), placedAt }, shards).GSI1PK;
  } catch {
    return undefined;
  }
}

export const migration = defineMigration<{ shards: number }>({
  name: '0002-status-index-shards',
  description: 'GSI1PK STATUS#<status>#<shard> on order summaries written unsharded or under another STATUS_SHARDS',
  touches: orderSummaryEntity,

  selects: (item, table) => orderSummaryEntity.matches(item) && item.GSI1PK !== expectedKey(item, table.writeShards),

  async prepare(table) {
    return { shards: table.writeShards };
  },

  rewrite(summary: Item, { shards }) {
    const key = expectedKey(summary, shards);
    if (key === undefined) return { unresolved: `summary ${pkOf(summary)}/${String(summary.SK)} lacks a valid id, status or placedAt` };
    return {
      rewrite: {
        key: { PK: pkOf(summary), SK: String(summary.SK) },
        set: { GSI1PK: key },
        condition: {
          expression:
            summary.GSI1PK === undefined ? '#status = :status AND attribute_not_exists(GSI1PK)' : '#status = :status AND GSI1PK = :was',
          names: { '#status': 'status' },
          values: { ':status': summary.status, ...(summary.GSI1PK === undefined ? {} : { ':was': summary.GSI1PK }) },
        },
      },
    };
  },
});
