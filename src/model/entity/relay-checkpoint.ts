/**
 * The outbox relay's bookkeeping (src/relay/relay.ts), kept in the table itself beside the data
 * whose stream it reads: one checkpoint per stream shard, and one dead letter per record the relay
 * gave up on. Each is written whole (PutItem, through the write guards) and read back by its codec
 * (src/relay/checkpoint.ts).
 *
 * Why in the table rather than a file under DATA_DIR: the checkpoint names positions in the
 * table's stream, so it lives and dies with that stream (an in-memory engine loses both together;
 * a table on disk, or Amazon DynamoDB, keeps both); every relay process against the same table
 * (`npm start`'s, `npm run relay`) finds it without sharing a directory; and the doctor and the
 * write guards know it as they know every other item.
 */
import type { Item } from '../../dynamo/table';
import { defineEntity, type KeyPart } from '../declare';
import { str } from '../keys';

/** A relay's name: which publisher's progress the checkpoint is (`hub`, `log`, `eventbridge`). */
const relayName: KeyPart = { shape: '[a-z][a-z0-9-]{0,39}', doc: 'relay name' };
/** A stream shard's id (Amazon: `shardId-<20 digits>-<8 hex>`). */
const shardId: KeyPart = { shape: '[A-Za-z0-9_.-]{1,65}', doc: 'shard id' };
/** A stream record's sequence number: 21 to 40 digits. */
const sequenceNumber: KeyPart = { shape: '\\d{1,40}', doc: 'sequence number' };

export const relayCheckpointEntity = defineEntity({
  name: 'Relay checkpoint',
  type: 'RELAY_CHECKPOINT',
  parts: { relay: relayName, shardId },
  table: { PK: 'RELAY#{relay}', SK: 'SHARD#{shardId}' },
  expires: false,
  codec: { toItem: relayCheckpointToItem, fromItem: relayCheckpointFromItem },
});

export type RelayCheckpointRecord = {
  relay: string;
  shardId: string;
  streamArn: string;
  /** The last record handled; undefined: nothing yet (the shard is read from its start). */
  sequenceNumber: string | undefined;
  /** The shard is closed and was read to its end. */
  closed: boolean;
  updatedAt: string;
};

export function relayCheckpointToItem(checkpoint: RelayCheckpointRecord): Item {
  const { sequenceNumber, ...rest } = checkpoint;
  return { ...relayCheckpointEntity.itemKeys(checkpoint), ...rest, ...(sequenceNumber === undefined ? {} : { sequenceNumber }) };
}

export function relayCheckpointFromItem(item: Item): RelayCheckpointRecord {
  return {
    relay: str(item, 'relay'),
    shardId: str(item, 'shardId'),
    streamArn: str(item, 'streamArn'),
    sequenceNumber: typeof item.sequenceNumber === 'string' ? item.sequenceNumber : undefined,
    closed: item.closed === true,
    updatedAt: str(item, 'updatedAt'),
  };
}

export const deadLetterEntity = defineEntity({
  name: 'Dead letter',
  type: 'DEAD_LETTER',
  parts: { relay: relayName, shardId, sequenceNumber },
  table: { PK: 'RELAY#{relay}', SK: 'DEAD#{shardId}#{sequenceNumber}' },
  expires: false,
  codec: { toItem: deadLetterToItem, fromItem: deadLetterFromItem },
});

export type DeadLetterRecord = {
  relay: string;
  shardId: string;
  sequenceNumber: string;
  error: string;
  attempts: number;
  at: string;
  /** The record's new image (or keys), JSON, cut at 64 KB. */
  image: string;
};

export function deadLetterToItem(letter: DeadLetterRecord): Item {
  return { ...deadLetterEntity.itemKeys(letter), ...letter };
}

export function deadLetterFromItem(item: Item): DeadLetterRecord {
  return {
    relay: str(item, 'relay'),
    shardId: str(item, 'shardId'),
    sequenceNumber: str(item, 'sequenceNumber'),
    error: str(item, 'error'),
    attempts: Number(item.attempts),
    at: str(item, 'at'),
    image: str(item, 'image'),
  };
}
