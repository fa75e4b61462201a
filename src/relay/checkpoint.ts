/**
 * The local relay's bookkeeping in the table (declared in src/model/entity/relay-checkpoint.ts,
 * which says why the table and not a file):
 *
 * - `RELAY#<relay>` / `SHARD#<shardId>`: the checkpoint of one stream shard, the sequence number of
 *   the last record whose events were all published (and counted): written only after publishing,
 *   so a crash between a commit and its publication re-reads the record after a restart
 *   (at-least-once). `closed` once a closed shard has been read to its end (its children may
 *   start). The stream's ARN is kept too: a checkpoint of another stream (the table was made
 *   again) is ignored.
 * - `RELAY#<relay>` / `DEAD#<shardId>#<sequenceNumber>`: a record the relay gave up on (it does
 *   not decode, or could not be published after `RELAY_MAX_ATTEMPTS` attempts), with the error,
 *   the attempts and its image (as JSON, cut at 64 KB), so it is looked at and replayed by hand
 *   instead of holding the shard forever.
 *
 * Every write is one PutItem of the whole item, through the write guards.
 */
import type { Table } from '../dynamo/table';
import { queryAll } from '../dynamo/paging';
import { guarded } from '../model/guards';
import {
  deadLetterEntity,
  deadLetterFromItem,
  deadLetterToItem,
  relayCheckpointEntity,
  relayCheckpointFromItem,
  relayCheckpointToItem,
  type DeadLetterRecord,
} from '../model/entity/relay-checkpoint';
import type { StreamRecordLike } from './deliver';

export interface ShardCheckpoint {
  shardId: string;
  streamArn: string;
  /** The last record handled; undefined: nothing yet (the shard is read from its start). */
  sequenceNumber: string | undefined;
  /** The shard is closed and was read to its end. */
  closed: boolean;
}

export type DeadLetter = DeadLetterRecord;

const IMAGE_MAX = 64 * 1024;

export class CheckpointStore {
  private readonly table: Table;

  constructor(
    table: Table,
    readonly relay: string,
  ) {
    if (!relayCheckpointEntity.isPart('relay', relay)) throw new Error(`a relay name is lower-case letters, digits and dashes: ${relay}`);
    this.table = guarded(table);
  }

  /** The checkpoints of `streamArn`'s shards (one strongly consistent Query). */
  async load(streamArn: string): Promise<Map<string, ShardCheckpoint>> {
    const checkpoints = new Map<string, ShardCheckpoint>();
    for (const item of await this.#items(relayCheckpointEntity.templates.SK.prefix)) {
      const { shardId, sequenceNumber, closed, streamArn: arn } = relayCheckpointFromItem(item);
      if (arn === streamArn) checkpoints.set(shardId, { shardId, streamArn, sequenceNumber, closed });
    }
    return checkpoints;
  }

  /** Records where a shard stands, after its records up to there were published. */
  async save(checkpoint: ShardCheckpoint): Promise<void> {
    await this.table.put({ Item: relayCheckpointToItem({ ...checkpoint, relay: this.relay, updatedAt: new Date().toISOString() }) });
  }

  /** Deletes the checkpoints of shards the stream no longer holds (trimmed after 24 hours). */
  async forget(shardIds: readonly string[]): Promise<void> {
    for (const shardId of shardIds) await this.table.delete({ Key: relayCheckpointEntity.key({ relay: this.relay, shardId }) });
  }

  /** Keeps a record the relay gives up on. */
  async deadLetter(shardId: string, record: StreamRecordLike, error: string, attempts: number): Promise<DeadLetter> {
    const letter: DeadLetter = {
      relay: this.relay,
      shardId,
      sequenceNumber: record.dynamodb?.SequenceNumber ?? '0',
      error: error.slice(0, 4096),
      attempts,
      at: new Date().toISOString(),
      image: JSON.stringify(record.dynamodb?.NewImage ?? record.dynamodb?.Keys ?? null).slice(0, IMAGE_MAX),
    };
    await this.table.put({ Item: deadLetterToItem(letter) });
    return letter;
  }

  /** The dead letters of this relay (`npm run relay -- --status`). */
  async deadLetters(): Promise<DeadLetter[]> {
    return (await this.#items(deadLetterEntity.templates.SK.prefix)).map(deadLetterFromItem);
  }

  /** Every checkpoint of this relay, as stored (`npm run relay -- --status`). */
  async checkpoints() {
    return (await this.#items(relayCheckpointEntity.templates.SK.prefix)).map(relayCheckpointFromItem);
  }

  async #items(skPrefix: string) {
    const { items } = await queryAll(this.table, {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': relayCheckpointEntity.templates.PK.build({ relay: this.relay }), ':sk': skPrefix },
      ConsistentRead: true,
    });
    return items;
  }
}
