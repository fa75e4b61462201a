/**
 * An expired idempotency record (src/model/entity/idempotency.ts, its TTL attribute `expiresAt`)
 * is deleted by the engine's TTL sweeper, as Amazon deletes it "typically within two days of
 * expiration": the sweeper's own rules are the engine's tests (packages/engine/test/ttl-sweep.int.test.ts);
 * this is the product's record going the same way. Embedded engine only (skipped against an
 * external endpoint).
 */
import {
  GetItemCommand,
  PutItemCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startEngine, type EmbeddedEngine } from '@single-table/engine';
import { clientFor, createTestTable, eventually, external, uniqueTableName } from '@single-table/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds, idempotencyToItem } from '../src/model/entity/idempotency';

describe.skipIf(external)('TTL sweeper on the product’s records (embedded engine)', () => {
  let engine: EmbeddedEngine;
  let client: DynamoDBClient;
  let table: string;

  beforeAll(async () => {
    // A short interval: the test waits for a background sweep.
    engine = await startEngine({ ttlSweepSeconds: 0.2 });
    client = clientFor(engine.endpoint);
    table = uniqueTableName('ttlsweep');
    await createTestTable(client, table);
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } }),
    );
  });

  afterAll(async () => {
    client?.destroy();
    await engine?.close();
  });

  it('deletes an expired idempotency record in a background sweep', async () => {
    const record = idempotencyToItem({
      customerId: 'cust-1',
      key: 'retry-key-1',
      orderId: 'order-1',
      fingerprint: 'f',
      expiresAt: epochSeconds() - 60,
    });
    const item = marshall(record);
    await client.send(new PutItemCommand({ TableName: table, Item: item }));
    const itemKey = { PK: item.PK as AttributeValue, SK: item.SK as AttributeValue };

    await eventually(async () => {
      const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: itemKey, ConsistentRead: true }));
      expect(Item).toBeUndefined();
    }, 5000);
  });
});
