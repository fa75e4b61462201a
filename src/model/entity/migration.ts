/**
 * Migration bookkeeping: keys and lifecycle, declared once. Its items are written attribute by
 * attribute (UpdateItem), never whole, so it has no `toItem`; it is read back by
 * `checkpointFromItem`/`appliedFromItem` (src/model/migration.ts).
 */
import { defineEntity } from '../declare';
import type { KeyPart } from '../declare';
import { digits } from './parts';

/** A migration's name: its file name, `NNNN-words-with-dashes`. */
const migrationName: KeyPart = { shape: '\\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*' };

export const migrationAppliedEntity = defineEntity({
  name: 'Migration record',
  type: 'MIGRATION',
  parts: { name: migrationName },
  table: { PK: 'MIGRATION#{name}', SK: 'APPLIED' },
  expires: false,
});

export const migrationCheckpointEntity = defineEntity({
  name: 'Migration checkpoint',
  type: 'MIGRATION_CHECKPOINT',
  parts: { name: migrationName, segment: digits(3, 'segment, 3 digits') },
  table: { PK: 'MIGRATION#{name}', SK: 'CHECKPOINT#{segment}' },
  expires: false,
});
