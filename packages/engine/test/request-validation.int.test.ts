/**
 * Requests DynamoDB refuses with a ValidationException before it reads or writes anything: key
 * values over the key size limits (table and index keys, in UTF-8 bytes), bad attribute names,
 * Select against the projection, ReturnValues and AttributeUpdates' Action out of their sets,
 * nested list_append, and malformed secondary index definitions. Each test is Amazon's documented
 * behaviour; the item is never written.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S, key, rejectionOf, setUpTarget, uniqueTableName, waitUntilActive, type TestTarget } from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('request-validation');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

const INVALID = 'One or more parameter values were invalid: ';
/** 1,100 'é': 1,100 UTF-16 code units but 2,200 UTF-8 bytes, over the 2,048-byte partition key limit only in bytes. */
const OVER_2048_IN_BYTES = 'é'.repeat(1100);
/** 600 'é': 1,200 bytes, over the 1,024-byte sort key limit only in bytes. */
const OVER_1024_IN_BYTES = 'é'.repeat(600);
const HASH_TOO_LARGE = `${INVALID}Size of hashkey has exceeded the maximum size limit of2048 bytes`;
const RANGE_TOO_LARGE = `${INVALID}Aggregated size of all range keys has exceeded the size limit of 1024 bytes`;

async function validationMessage(promise: Promise<unknown>): Promise<string> {
  const err = await rejectionOf(promise);
  expect(err.name).toBe('ValidationException');
  return err.message;
}

async function stored(pk: string, sk: string): Promise<Record<string, AttributeValue> | undefined> {
  const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key(pk, sk), ConsistentRead: true }));
  return Item;
}

const put = (item: Record<string, AttributeValue>) => target.client.send(new PutItemCommand({ TableName: table, Item: item }));

describe('key value sizes, in UTF-8 bytes', () => {
  it('refuses a table partition key over 2,048 bytes and a sort key over 1,024 bytes', async () => {
    expect(await validationMessage(put(key(OVER_2048_IN_BYTES, 'a')))).toBe(HASH_TOO_LARGE);
    expect(await validationMessage(put(key('keys', OVER_1024_IN_BYTES)))).toBe(RANGE_TOO_LARGE);
    expect(await validationMessage(target.client.send(new GetItemCommand({ TableName: table, Key: key(OVER_2048_IN_BYTES, 'a') })))).toBe(
      HASH_TOO_LARGE,
    );
    expect(
      await validationMessage(target.client.send(new DeleteItemCommand({ TableName: table, Key: key('keys', OVER_1024_IN_BYTES) }))),
    ).toBe(RANGE_TOO_LARGE);
  });

  it('accepts keys at the limits', async () => {
    await put({ ...key('é'.repeat(1024), 'é'.repeat(512)), GSI1PK: S('é'.repeat(1024)), GSI1SK: S('é'.repeat(512)) });
    expect(await stored('é'.repeat(1024), 'é'.repeat(512))).toBeDefined();
  });

  it('PutItem refuses an index partition or sort key over its limit', async () => {
    expect(await validationMessage(put({ ...key('gsi', 'put'), GSI1PK: S(OVER_2048_IN_BYTES), GSI1SK: S('a') }))).toBe(
      `${INVALID}Size limit exceeded for Index Key GSI1PK Actual Size: 2200 bytes Max Size: 2048 bytes IndexName: GSI1`,
    );
    expect(await validationMessage(put({ ...key('gsi', 'put'), GSI1PK: S('a'), GSI1SK: S(OVER_1024_IN_BYTES) }))).toBe(
      `${INVALID}Size limit exceeded for Index Key GSI1SK Actual Size: 1200 bytes Max Size: 1024 bytes IndexName: GSI1`,
    );
    expect(await stored('gsi', 'put')).toBeUndefined();
  });

  it('UpdateItem refuses an update whose resulting item has an index key over its limit', async () => {
    await put({ ...key('gsi', 'update'), GSI1SK: S('a'), big: S(OVER_2048_IN_BYTES) });
    const message = await validationMessage(
      target.client.send(new UpdateItemCommand({ TableName: table, Key: key('gsi', 'update'), UpdateExpression: 'SET GSI1PK = big' })),
    );
    expect(message).toBe(`${INVALID}Size limit exceeded for Index Key GSI1PK Actual Size: 2200 bytes Max Size: 2048 bytes IndexName: GSI1`);
    expect((await stored('gsi', 'update'))?.GSI1PK).toBeUndefined();
  });

  it('BatchWriteItem refuses the whole batch', async () => {
    const message = await validationMessage(
      target.client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [table]: [
              { PutRequest: { Item: key('gsi', 'batch-ok') } },
              { PutRequest: { Item: { ...key('gsi', 'batch-big'), GSI1PK: S(OVER_2048_IN_BYTES), GSI1SK: S('a') } } },
            ],
          },
        }),
      ),
    );
    expect(message).toBe(`${INVALID}Size limit exceeded for Index Key GSI1PK Actual Size: 2200 bytes Max Size: 2048 bytes IndexName: GSI1`);
    expect(await stored('gsi', 'batch-ok')).toBeUndefined();
  });

  it('TransactWriteItems writes nothing when a Put has an index key over its limit', async () => {
    const err = await rejectionOf(
      target.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: key('gsi', 'tx-ok') } },
            { Put: { TableName: table, Item: { ...key('gsi', 'tx-big'), GSI1PK: S('a'), GSI1SK: S(OVER_1024_IN_BYTES) } } },
          ],
        }),
      ),
    );
    const messages = [err.message, ...((err.CancellationReasons ?? []) as { Message?: string }[]).map((reason) => reason.Message)];
    expect(messages).toContain(
      `${INVALID}Size limit exceeded for Index Key GSI1SK Actual Size: 1200 bytes Max Size: 1024 bytes IndexName: GSI1`,
    );
    expect(await stored('gsi', 'tx-ok')).toBeUndefined();
  });
});

describe('attribute names', () => {
  it('refuses an empty attribute name in an item, a key or AttributeUpdates', async () => {
    const empty = `${INVALID}An attribute name may not be empty`;
    expect(await validationMessage(put({ ...key('names', 'empty'), '': S('x') }))).toBe(empty);
    expect(
      await validationMessage(target.client.send(new GetItemCommand({ TableName: table, Key: { ...key('names', 'empty'), '': S('x') } }))),
    ).toBe(empty);
    expect(
      await validationMessage(
        target.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: key('names', 'empty'),
            AttributeUpdates: { '': { Action: 'PUT', Value: S('x') } },
          }),
        ),
      ),
    ).toBe(empty);
    expect(await stored('names', 'empty')).toBeUndefined();
  });

  it('refuses a name of 64 KB or more', async () => {
    expect(await validationMessage(put({ ...key('names', 'long'), ['n'.repeat(65536)]: S('x') }))).toBe(
      `${INVALID}An attribute name exceeds the maximum size limit of 65535 bytes`,
    );
  });

  it('refuses an empty ExpressionAttributeNames value', async () => {
    const message = await validationMessage(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('names', 'ean'),
          UpdateExpression: 'SET #n = :v',
          ExpressionAttributeNames: { '#n': '' },
          ExpressionAttributeValues: { ':v': S('x') },
        }),
      ),
    );
    expect(message).toBe('ExpressionAttributeNames contains invalid value: Empty attribute name for key #n');
  });

  it('refuses key attribute names and index-projected names over 255 characters', async () => {
    const long = 'k'.repeat(256);
    const definition = {
      TableName: uniqueTableName('long-names'),
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: long, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: long, KeyType: 'HASH' }],
    } satisfies CreateTableCommandInput;
    expect(await validationMessage(target.client.send(new CreateTableCommand(definition)))).toMatch(
      /^2 validation errors detected: Value 'k{256}' at 'attributeDefinitions\.1\.member\.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255; Value 'k{256}' at 'keySchema\.1\.member\.attributeName'/,
    );
    const projected = await validationMessage(
      target.client.send(
        new CreateTableCommand(
          gsiTable({ Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [long] } }) as CreateTableCommandInput,
        ),
      ),
    );
    expect(projected).toBe(
      `1 validation error detected: Value '${long}' at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member' failed to satisfy constraint: Member must have length less than or equal to 255`,
    );
  });
});

describe('request members', () => {
  const query = { TableName: '', KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': S('select') } };

  it('Query and Scan refuse a Select that contradicts the projection or the target', async () => {
    const q = (input: object) => validationMessage(target.client.send(new QueryCommand({ ...query, TableName: table, ...input })));
    const scan = (input: object) => validationMessage(target.client.send(new ScanCommand({ TableName: table, ...input })));
    expect(await q({ Select: 'ALL_ATTRIBUTES', ProjectionExpression: 'PK' })).toBe(
      '1 validation error detected: Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES',
    );
    expect(await q({ Select: 'COUNT', ProjectionExpression: 'PK' })).toBe(
      '1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count',
    );
    expect(await q({ Select: 'SPECIFIC_ATTRIBUTES' })).toBe(
      '1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES',
    );
    expect(await scan({ Select: 'SPECIFIC_ATTRIBUTES' })).toBe(
      'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES',
    );
    expect(await scan({ Select: 'ALL_ATTRIBUTES', AttributesToGet: ['PK'] })).toBe(
      'Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES',
    );
    expect(await scan({ Select: 'ALL_PROJECTED_ATTRIBUTES' })).toBe(
      'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName',
    );
    // Accepted as Amazon accepts them.
    await target.client.send(new QueryCommand({ ...query, TableName: table, Select: 'SPECIFIC_ATTRIBUTES', ProjectionExpression: 'PK' }));
    await target.client.send(new ScanCommand({ TableName: table, IndexName: 'GSI1', Select: 'ALL_PROJECTED_ATTRIBUTES' }));
  });

  it('DeleteItem accepts ReturnValues NONE or ALL_OLD only', async () => {
    for (const returnValues of ['ALL_NEW', 'UPDATED_OLD', 'UPDATED_NEW'] as const) {
      const message = await validationMessage(
        target.client.send(new DeleteItemCommand({ TableName: table, Key: key('rv', 'delete'), ReturnValues: returnValues })),
      );
      expect(message).toBe('ReturnValues can only be ALL_OLD or NONE');
    }
  });

  it('UpdateItem refuses an AttributeUpdates Action other than ADD, PUT or DELETE', async () => {
    const message = await validationMessage(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('au', 'action'),
          AttributeUpdates: { a: { Action: 'REPLACE' as never, Value: S('x') } },
        }),
      ),
    );
    expect(message).toBe(
      "1 validation error detected: Value 'REPLACE' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]",
    );
    expect(await stored('au', 'action')).toBeUndefined();
  });

  it('UpdateItem refuses list_append nested in list_append, and accepts if_not_exists inside list_append', async () => {
    const update = (expression: string) =>
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('fn', 'nesting'),
          UpdateExpression: expression,
          ExpressionAttributeValues: { ':a': { L: [S('a')] }, ':b': { L: [S('b')] } },
        }),
      );
    expect(await validationMessage(update('SET l = list_append(list_append(:a, :b), :a)'))).toBe(
      'Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append',
    );
    expect(await validationMessage(update('SET l = if_not_exists(if_not_exists(l, :a), :b)'))).toBe(
      'Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists',
    );
    await update('SET l = list_append(if_not_exists(l, :a), :b)');
    expect((await stored('fn', 'nesting'))?.l).toEqual({ L: [S('a'), S('b')] });
  });

  it('Query refuses an ExclusiveStartKey that is not the key of the table or of the index', async () => {
    const q = (input: object) => validationMessage(target.client.send(new QueryCommand({ ...query, TableName: table, ...input })));
    expect(await q({ ExclusiveStartKey: { PK: S('select') } })).toBe('The provided starting key is invalid');
    expect(await q({ ExclusiveStartKey: { ...key('select', 'a'), X: S('x') } })).toBe('The provided starting key is invalid');
    expect(
      await validationMessage(
        target.client.send(
          new QueryCommand({
            TableName: table,
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :p',
            ExpressionAttributeValues: { ':p': S('g') },
            ExclusiveStartKey: key('g', 'a'),
          }),
        ),
      ),
    ).toBe('The provided starting key is invalid');
  });
});

/** A PAY_PER_REQUEST table with one GSI `idx` on `G`, with `index` merged into its definition. */
function gsiTable(
  index: object,
  definitions = [
    { AttributeName: 'PK', AttributeType: 'S' },
    { AttributeName: 'G', AttributeType: 'S' },
  ],
) {
  return {
    TableName: uniqueTableName('gsi-def'),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: definitions,
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      { IndexName: 'idx', KeySchema: [{ AttributeName: 'G', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ...index },
    ],
  };
}

describe('secondary index definitions', () => {
  const create = (definition: object) =>
    validationMessage(target.client.send(new CreateTableCommand(definition as CreateTableCommandInput)));

  it('CreateTable refuses a malformed projection or conflicting attribute definitions', async () => {
    expect(await create(gsiTable({ Projection: { ProjectionType: 'INCLUDE' } }))).toBe(
      `${INVALID}ProjectionType is INCLUDE, but NonKeyAttributes is not specified`,
    );
    expect(await create(gsiTable({ Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a', 'a'] } }))).toBe(
      `${INVALID}Duplicate value in NonKeyAttributes: a, IndexName: idx`,
    );
    expect(await create(gsiTable({ Projection: { ProjectionType: 'ALL', NonKeyAttributes: ['a'] } }))).toBe(
      `${INVALID}ProjectionType is ALL, but NonKeyAttributes is specified`,
    );
    const conflicting = [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'G', AttributeType: 'S' },
      { AttributeName: 'G', AttributeType: 'N' },
    ];
    expect(await create(gsiTable({}, conflicting))).toBe(`${INVALID}Duplicate AttributeName in AttributeDefinitions: G`);
    expect(await create(gsiTable({ IndexName: 'an index' }))).toBe(
      "1 validation error detected: Value 'an index' at 'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    );
    expect(await create(gsiTable({ IndexName: 'i'.repeat(256) }))).toMatch(/Member must have length less than or equal to 255$/);
  });

  it('UpdateTable refuses a new index with a malformed projection or an undefined key attribute', async () => {
    const name = uniqueTableName('gsi-update');
    await target.client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      }),
    );
    await waitUntilActive(target.client, name);
    const createIndex = (projection: object, definitions?: { AttributeName: string; AttributeType: 'S' }[]) =>
      validationMessage(
        target.client.send(
          new UpdateTableCommand({
            TableName: name,
            ...(definitions ? { AttributeDefinitions: definitions } : {}),
            GlobalSecondaryIndexUpdates: [
              {
                Create: {
                  IndexName: 'idx',
                  KeySchema: [{ AttributeName: 'H', KeyType: 'HASH' }],
                  Projection: projection,
                  ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
                },
              },
            ],
          }),
        ),
      );
    const h = [{ AttributeName: 'H', AttributeType: 'S' as const }];
    expect(await createIndex({ ProjectionType: 'INCLUDE' }, h)).toBe(
      `${INVALID}ProjectionType is INCLUDE, but NonKeyAttributes is not specified`,
    );
    expect(await createIndex({ ProjectionType: 'KEYS_ONLY', NonKeyAttributes: ['a'] }, h)).toBe(
      `${INVALID}ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified`,
    );
    expect(await createIndex({ ProjectionType: 'ALL' })).toBe(
      `${INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: [H], AttributeDefinitions: []`,
    );
  });
});
