/**
 * Cases of ScyllaDB's Alternator suite (test/alternator in scylladb/scylladb, written and run
 * against Amazon DynamoDB) where dynalite answered otherwise, each named by its test there; put
 * right in grammar-fixes.ts (how expressions parse and validate), condition-semantics.ts (how
 * conditions evaluate), request-checks.ts and number-limits.ts (what a request may hold) and
 * index-updates.ts. Runs against any endpoint.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  N,
  S,
  key,
  list,
  rejectionOf,
  setUpTarget,
  testTableDefinition,
  uniqueTableName,
  waitUntilActive,
  type TestTarget,
} from './support';

let target: TestTarget;
let table: string;

beforeAll(async () => {
  target = await setUpTarget('alternator');
  table = target.tableName;
});

afterAll(async () => {
  await target?.tearDown();
});

async function put(item: Record<string, AttributeValue>): Promise<void> {
  await target.client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** `request` sent: 'ok', 'failed' (a failed condition) or the ValidationException's message. */
async function outcome(request: Promise<unknown>): Promise<string> {
  try {
    await request;
    return 'ok';
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return 'failed';
    if ((err as Error).name === 'ValidationException') return (err as Error).message;
    throw err;
  }
}

describe('conditions', () => {
  const bytes = (...values: number[]): AttributeValue => ({ B: Uint8Array.from(values) });
  beforeAll(async () => {
    await put({
      ...key('alternator', '1'),
      a: N(1),
      b: N(2),
      off: { BOOL: false },
      bin: bytes(0x61, 0x0b, 0xe6, 0x14),
      bins: { BS: [Uint8Array.from([0x0b, 0xe6])] },
    });
  });
  /** An UpdateItem of `alternator` under `condition`. */
  const updateIf = (condition: string, values: Record<string, AttributeValue> = {}) =>
    outcome(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('alternator', '1'),
          UpdateExpression: 'SET z = :z',
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':z': N(3), ...values },
        }),
      ),
    );

  it('NOT applies to a NOT (test_update_condition_not)', async () => {
    expect(await updateIf('NOT NOT NOT NOT a < b')).toBe('ok');
    expect(await updateIf('NOT NOT a > b')).toBe('failed');
    expect(await updateIf('NOT NOT NOT b < a')).toBe('ok');
  });

  it('refuses a list, map, set, Boolean or NULL operand of <, <=, >, >= and BETWEEN (test_update_condition_lt, _between)', async () => {
    const operand = 'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function:';
    expect(await updateIf('a < :v', { ':v': list('1') })).toBe(`${operand} <, operand type: LIST`);
    expect(await updateIf(':v <= a', { ':v': { M: {} } })).toBe(`${operand} <=, operand type: MAP`);
    expect(await updateIf('a > :v', { ':v': { BOOL: true } })).toBe(`${operand} >, operand type: BOOL`);
    expect(await updateIf('a >= :v', { ':v': { NS: ['1'] } })).toBe(`${operand} >=, operand type: NS`);
    expect(await updateIf('a BETWEEN :x AND :y', { ':x': list('1'), ':y': list('2') })).toBe(`${operand} BETWEEN, operand type: LIST`);
    expect(await updateIf('a < :v', { ':v': S('x') })).toBe('failed'); // a String is compared (and a Number is not less than it)
  });

  it('refuses the update functions in a condition as not allowed there (test_update_condition_other_funcs)', async () => {
    for (const fn of ['if_not_exists', 'list_append']) {
      expect(await updateIf(`${fn}(a, a) = :v`, { ':v': N(5) })).toBe(
        `Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: ${fn}`,
      );
    }
  });

  it('attribute_type of a false Boolean is BOOL (test_filter_expression_attribute_type)', async () => {
    expect(await updateIf('attribute_type(off, :t)', { ':t': S('BOOL') })).toBe('ok');
    expect(await updateIf('attribute_type(off, :t)', { ':t': S('S') })).toBe('failed');
  });

  it('begins_with and contains compare a Binary by its bytes (test_filter_expression_bytes_contains)', async () => {
    expect(await updateIf('contains(bin, :v)', { ':v': bytes(0x0b, 0xfd) })).toBe('failed'); // not there, though both decode to U+FFFD
    expect(await updateIf('contains(bin, :v)', { ':v': bytes(0x0b, 0xe6) })).toBe('ok');
    expect(await updateIf('begins_with(bin, :v)', { ':v': bytes(0x61, 0x0b, 0xfd) })).toBe('failed');
    expect(await updateIf('begins_with(bin, :v)', { ':v': bytes(0x61, 0x0b) })).toBe('ok');
    expect(await updateIf('contains(bins, :v)', { ':v': bytes(0x0b, 0xfd) })).toBe('failed');
    expect(await updateIf('contains(bins, :v)', { ':v': bytes(0x0b, 0xe6) })).toBe('ok');
  });
});

describe('names and paths', () => {
  beforeAll(async () => {
    await put({ ...key('names', '1'), b_c: N(2), a: { M: {} }, nums: { L: [N(7), N(42)] } });
  });
  const update = (expression: string, values?: Record<string, AttributeValue>) =>
    outcome(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('names', '1'),
          UpdateExpression: expression,
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
  const project = (expression: string) =>
    outcome(target.client.send(new GetItemCommand({ TableName: table, Key: key('names', '1'), ProjectionExpression: expression })));

  it('a name starts with a letter: a leading underscore is a syntax error, one inside a name is fine (test_update_expression_name_token)', async () => {
    expect(await update('SET _123 = :v', { ':v': N(3) })).toMatch(/^Invalid UpdateExpression: Syntax error/);
    expect(await update('SET _abc = :v', { ':v': N(3) })).toMatch(/^Invalid UpdateExpression: Syntax error/);
    expect(await update('SET a.b = _f(b, c)')).toMatch(/^Invalid UpdateExpression: Syntax error/); // test_update_expression_unknown_function
    expect(await project('_a')).toMatch(/^Invalid ProjectionExpression: Syntax error/);
    expect(await update('SET b_c = :v', { ':v': N(3) })).toBe('ok');
    expect(await project('b_c')).toBe('ok');
  });

  it('a list index is at most 2,147,483,647, in every expression (test_projection_expression_list_index)', async () => {
    const range = 'List index is not within the allowable range; index:';
    expect(await project('nums[99999999999999]')).toBe(`Invalid ProjectionExpression: ${range} [99999999999999]`);
    expect(await project('nums[2147483647]')).toBe('ok');
    expect(await update('SET nums[4294967295] = :v', { ':v': N(1) })).toBe(`Invalid UpdateExpression: ${range} [4294967295]`);
    const condition = await outcome(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('names', '1'),
          UpdateExpression: 'SET z = :v',
          ConditionExpression: 'attribute_exists(nums[4294967295])',
          ExpressionAttributeValues: { ':v': N(1) },
        }),
      ),
    );
    expect(condition).toBe(`Invalid ConditionExpression: ${range} [4294967295]`);
  });

  it('a ProjectionExpression path is at most 32 levels deep (test_projection_expression_path_nesting_levels)', async () => {
    expect(await project(`a${'.b'.repeat(31)}`)).toBe('ok');
    expect(await project(`a${'.b'.repeat(32)}`)).toBe(
      'Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33',
    );
  });
});

describe('requests', () => {
  beforeAll(async () => {
    await put({ ...key('legacy', '1'), tags: list('a', 'b'), doc: { M: { k: S('v') } }, on: { BOOL: true } });
    await put({ ...key('legacy', '2'), tags: list('b'), on: { BOOL: false } });
  });
  const send = (operation: string, body: Record<string, unknown>) =>
    fetch(target.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        authorization: 'AWS4-HMAC-SHA256 Credential=test/20261204/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));

  it('legacy EQ and NE take a list, a map or a Boolean (test_query_filter_eq, _ne)', async () => {
    const filtered = async (name: string, operator: string, value: AttributeValue) => {
      const { Items } = await target.client.send(
        new QueryCommand({
          TableName: table,
          KeyConditions: { PK: { ComparisonOperator: 'EQ', AttributeValueList: [S('legacy')] } },
          QueryFilter: { [name]: { ComparisonOperator: operator as 'EQ', AttributeValueList: [value] } },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map((item) => item.SK!.S).sort();
    };
    expect(await filtered('tags', 'EQ', list('a', 'b'))).toEqual(['1']);
    expect(await filtered('tags', 'NE', list('a', 'b'))).toEqual(['2']);
    expect(await filtered('doc', 'EQ', { M: { k: S('v') } })).toEqual(['1']);
    expect(await filtered('on', 'EQ', { BOOL: false })).toEqual(['2']);
    // Still refused for the operators that order or search values.
    await expect(filtered('tags', 'LE', list('a'))).rejects.toThrow('ComparisonOperator LE is not valid for L AttributeValue type');
  });

  it('Scan: TotalSegments at most 1,000,000, and a Segment needs TotalSegments, Segment 0 too (test_scan_parallel_incorrect)', async () => {
    const scan = (body: Record<string, unknown>) => outcome(target.client.send(new ScanCommand({ TableName: table, ...body })));
    expect(await scan({ TotalSegments: 1_000_001, Segment: 0 })).toMatch(/Member must have value less than or equal to 1000000/);
    expect(await scan({ TotalSegments: 1_000_000, Segment: 0 })).toBe('ok');
    expect(await scan({ Segment: 0 })).toBe(
      'The TotalSegments parameter is required but was not present in the request when Segment parameter is present',
    );
  });

  it('BatchWriteItem: a write request that is not an object is a SerializationException, not a 500 (test_batch_write_item_invalid_payload)', async () => {
    for (const [operation, body] of [
      ['BatchWriteItem', { RequestItems: { [table]: [null] } }],
      ['TransactWriteItems', { TransactItems: [null] }],
      ['TransactGetItems', { TransactItems: [null] }],
      ['PutItem', { TableName: table, Item: { ...key('shape', '1'), m: { M: { x: null } } } }],
    ] as const) {
      const answer = await send(operation, body);
      expect([operation, answer.status, String(answer.body.__type)]).toEqual([
        operation,
        400,
        expect.stringMatching(/#SerializationException$/),
      ]);
    }
  });

  it('AttributesToGet names are 1 to 65,535 bytes (test_limit_attribute_length_nonkey_bad, _empty)', async () => {
    const get = (names: string[]) =>
      outcome(target.client.send(new GetItemCommand({ TableName: table, Key: key('legacy', '1'), AttributesToGet: names })));
    expect(await get(['x'.repeat(65_536)])).toMatch(/exceeds the maximum size limit of 65535 bytes/);
    expect(await get([''])).toMatch(/An attribute name may not be empty/);
    expect(await get(['x'.repeat(65_535)])).toBe('ok');
  });

  it('a value is nested at most 32 levels, the attribute being the first (test_exceed_nested_level_a_little)', async () => {
    const deep = (levels: number): AttributeValue => {
      let value: AttributeValue = S('leaf');
      for (let i = 0; i < levels; i++) value = i % 2 ? { L: [value] } : { M: { n: value } };
      return value;
    };
    const nesting = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
    const putDeep = (levels: number) =>
      outcome(target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('deep', String(levels)), v: deep(levels) } })));
    expect(await putDeep(31)).toBe('ok');
    expect(await putDeep(32)).toBe(nesting);
    expect(await putDeep(50)).toBe(nesting);
    const setDeep = (levels: number) =>
      outcome(
        target.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: key('deep', '31'),
            UpdateExpression: 'SET w = :v',
            ExpressionAttributeValues: { ':v': deep(levels) },
          }),
        ),
      );
    expect(await setDeep(31)).toBe('ok');
    expect(await setDeep(32)).toBe(nesting);
  });

  it('a condition holds at most 300 operators and functions (test_deeply_nested_expression_2, _4)', async () => {
    await put({ ...key('operators', '1'), a: N(1), b: N(2) });
    const updateIf = (condition: string) =>
      outcome(
        target.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: key('operators', '1'),
            UpdateExpression: 'SET z = :z',
            ConditionExpression: condition,
            ExpressionAttributeValues: { ':z': N(1) },
          }),
        ),
      );
    const tooMany = 'Invalid ConditionExpression: The expression contains too many operators; operator count: 301';
    // 149 levels: 150 comparisons and 149 ORs, 299 operators.
    expect(await updateIf(`a<b ${'or (a<b '.repeat(149)}${')'.repeat(149)}`)).toBe('ok');
    expect(await updateIf(`a<b ${'or (a<b '.repeat(454)}${')'.repeat(454)}`)).toBe(tooMany);
    expect(await updateIf(`${'not '.repeat(1000)}a<b`)).toBe(tooMany);
    expect(await updateIf(`${'not '.repeat(298)}a<b`)).toBe('ok'); // 298 NOTs and a comparison: 299
  });
});

describe('numbers', () => {
  const update = (expression: string, values: Record<string, AttributeValue>) =>
    outcome(
      target.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('numbers', '1'),
          UpdateExpression: expression,
          ExpressionAttributeValues: values,
        }),
      ),
    );

  it('the result of arithmetic is held to the bounds of every number (test_update_expression_plus_overflow, _plus_imprecise)', async () => {
    const big = { ':x': { N: '9E+125' }, ':y': { N: '9E+125' } };
    expect(await update('SET b = :x + :y', big)).toBe(
      'Number overflow. Attempting to store a number with magnitude larger than supported range',
    );
    expect(await update('SET b = :x - :y', { ':x': { N: '9E+125' }, ':y': { N: '-9E+125' } })).toMatch(/^Number overflow/);
    expect(await update('ADD c :x', { ':x': { N: '9E+125' } })).toBe('ok');
    expect(await update('ADD c :x', { ':x': { N: '9E+125' } })).toMatch(/^Number overflow/);
    expect(await update('SET d = :x - :y', { ':x': { N: '1E+50' }, ':y': N(1) })).toBe(
      'Attempting to store more than 38 significant digits in a Number',
    );
    expect(await update('SET d = :x - :y', { ':x': { N: '1E-130' }, ':y': { N: '1.1E-130' } })).toMatch(/^Number underflow/);
    expect(await update('SET e = :x + :y', { ':x': { N: '1E+37' }, ':y': N(1) })).toBe('ok'); // 38 digits
    const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key('numbers', '1'), ConsistentRead: true }));
    expect(Item?.e).toEqual({ N: `1${'0'.repeat(36)}1` });
    expect(Item?.b).toBeUndefined();
  });

  it('a number may carry one leading plus, answered normalised (test_invalid_numbers, test_number_output_normalization)', async () => {
    await put({ ...key('plus', '1'), a: { N: '+3' }, b: { N: '+1.5' }, c: { N: '+0' }, s: { NS: ['+2', '4'] } });
    const { Item } = await target.client.send(new GetItemCommand({ TableName: table, Key: key('plus', '1'), ConsistentRead: true }));
    expect([Item?.a, Item?.b, Item?.c]).toEqual([{ N: '3' }, { N: '1.5' }, { N: '0' }]);
    expect(Item?.s?.NS?.sort()).toEqual(['2', '4']);
    expect(await update('SET f = :v', { ':v': { N: '+-3' } })).toMatch(/cannot be converted to a numeric value/);
  });
});

describe('legacy Expected and online indexes', () => {
  beforeAll(async () => {
    await put({ ...key('expected', '1'), a: N(1) });
  });
  const putWith = (extra: Record<string, unknown>) =>
    outcome(target.client.send(new PutItemCommand({ TableName: table, Item: { ...key('expected', '1'), a: N(2) }, ...extra })));

  it('NOT_CONTAINS of a missing attribute is false (test_update_expected_1_not_contains)', async () => {
    for (const value of [N(1), S('x'), { B: Uint8Array.from([1]) }]) {
      expect(await putWith({ Expected: { missing: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [value] } } })).toBe('failed');
    }
    expect(await putWith({ Expected: { a: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [S('x')] } } })).toBe('ok');
  });

  it('ConditionalOperator needs an Expected to combine (test_update_expected_empty, test_conditional_operator_expected_missing)', async () => {
    const message = 'ConditionalOperator can only be used when Filter or Expected has two or more elements';
    for (const operator of ['OR', 'AND'] as const) {
      expect(await putWith({ Expected: {}, ConditionalOperator: operator })).toBe(message);
      expect(await putWith({ ConditionalOperator: operator })).toBe(message);
    }
  });

  it('an index update holds one action (test_gsi_updatetable_errors)', async () => {
    const refused = await outcome(
      target.client.send(
        new UpdateTableCommand({
          TableName: table,
          AttributeDefinitions: [{ AttributeName: 'x', AttributeType: 'N' }],
          GlobalSecondaryIndexUpdates: [
            {
              Create: { IndexName: 'ind', KeySchema: [{ AttributeName: 'x', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
              Delete: { IndexName: 'xyz' },
            },
          ],
        }),
      ),
    );
    expect(refused).toMatch(/Only one of GlobalSecondaryIndexUpdate/);
  });

  it('CreateTable of an existing table says so; DeleteTable answers without the keys and dates (test_create_table_already_exists, test_delete_table_description)', async () => {
    const name = uniqueTableName('answers');
    await target.client.send(new CreateTableCommand(testTableDefinition(name)));
    await waitUntilActive(target.client, name);
    const again = await rejectionOf(target.client.send(new CreateTableCommand(testTableDefinition(name))));
    expect([again.name, again.message]).toEqual(['ResourceInUseException', `Table already exists: ${name}`]);
    const { TableDescription } = await target.client.send(new DeleteTableCommand({ TableName: name }));
    expect(TableDescription?.TableName).toBe(name);
    expect([TableDescription?.KeySchema, TableDescription?.AttributeDefinitions, TableDescription?.CreationDateTime]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
