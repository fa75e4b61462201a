/**
 * template.yaml (AWS SAM) against the code: the table it deploys is the table `npm run
 * table:create` makes (`tableDefinition()`), and the function may touch that table and its
 * indexes only. Pure: the template is parsed, nothing is deployed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parse, type Tags } from 'yaml';
import { tableDefinition, TTL_ATTRIBUTE } from '../src/dynamo/definition';

const root = fileURLToPath(new URL('..', import.meta.url));

/** CloudFormation's short-form intrinsics (`!Ref X`, `!GetAtt A.B`, `!Sub '…'`), in their long form. */
const INTRINSICS = ['Ref', 'Condition', 'GetAtt', 'Sub', 'Join', 'If', 'Equals', 'Not', 'And', 'Or', 'Select', 'Split', 'FindInMap', 'GetAZs', 'ImportValue', 'Base64', 'Cidr'];
const longName = (name: string) => (name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`);
const cloudFormationTags: Tags = INTRINSICS.flatMap((name) => [
  {
    tag: `!${name}`,
    resolve: (value: string) => ({ [longName(name)]: name === 'GetAtt' ? [value.slice(0, value.indexOf('.')), value.slice(value.indexOf('.') + 1)] : value }),
  },
  { tag: `!${name}`, collection: 'seq' as const, resolve: (value: unknown) => ({ [longName(name)]: isSeq(value) ? value.toJSON() : value }) },
  { tag: `!${name}`, collection: 'map' as const, resolve: (value: unknown) => ({ [longName(name)]: isMap(value) ? value.toJSON() : value }) },
]);

interface Resource { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any> }
const template = parse(readFileSync(`${root}/template.yaml`, 'utf8'), { customTags: cloudFormationTags }) as { Resources: Record<string, Resource> };

function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

const tables = resourcesOf('AWS::DynamoDB::Table');
const [tableId, table] = tables[0] ?? ['', { Type: '', Properties: {} }];
const functions = resourcesOf('AWS::Serverless::Function');
const [functionId, fn] = functions[0] ?? ['', { Type: '', Properties: {} }];
const expected = tableDefinition('app');

const byName = <T extends { AttributeName?: string | undefined }>(list: readonly T[] = []) => [...list].sort((a, b) => String(a.AttributeName).localeCompare(String(b.AttributeName)));
const sorted = (list: readonly string[] = []) => [...list].sort();

describe('the table in template.yaml is the table table:create makes', () => {
  it('declares exactly one table', () => {
    expect(tables.map(([id]) => id)).toEqual([tableId]);
  });

  it('has the same key schema and attribute definitions', () => {
    expect(table.Properties.KeySchema).toEqual(expected.KeySchema);
    expect(byName(table.Properties.AttributeDefinitions)).toEqual(byName(expected.AttributeDefinitions));
  });

  it('has the same global secondary indexes: names, keys, projection', () => {
    const normalise = (indexes: any[] = []) => [...indexes]
      .map((index) => ({
        IndexName: index.IndexName,
        KeySchema: index.KeySchema,
        Projection: { ProjectionType: index.Projection?.ProjectionType, NonKeyAttributes: sorted(index.Projection?.NonKeyAttributes) },
        others: Object.keys(index).filter((key) => !['IndexName', 'KeySchema', 'Projection'].includes(key)),
      }))
      .sort((a, b) => a.IndexName.localeCompare(b.IndexName));
    expect(normalise(table.Properties.GlobalSecondaryIndexes)).toEqual(normalise(expected.GlobalSecondaryIndexes));
  });

  it('bills on demand, expires items on the TTL attribute, and has no local secondary index', () => {
    expect(table.Properties.BillingMode).toBe(expected.BillingMode);
    expect(table.Properties.ProvisionedThroughput).toBeUndefined();
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(table.Properties.LocalSecondaryIndexes).toBeUndefined();
    expect(expected.LocalSecondaryIndexes).toBeUndefined();
  });
});

describe('the function in template.yaml', () => {
  it('is one Node.js function whose handler is the bundle the Makefile builds', () => {
    expect(functions.map(([id]) => id)).toEqual([functionId]);
    expect(['nodejs20.x', 'nodejs22.x']).toContain(fn.Properties.Runtime);
    expect(fn.Properties.Handler).toBe('lambda.handler');
    expect(fn.Metadata).toEqual({ BuildMethod: 'makefile' });
    const makefile = readFileSync(`${root}/Makefile`, 'utf8');
    expect(makefile).toMatch(new RegExp(`^build-${functionId}:`, 'm'));
    expect(makefile).toContain('src/lambda.ts');
    expect(makefile).toContain('--outfile=$(ARTIFACTS_DIR)/lambda.mjs');
  });

  it('is configured for production on this table', () => {
    expect(fn.Properties.Environment.Variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, NODE_ENV: 'production' });
    expect(fn.Properties.Environment.Variables.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('is reached through an HTTP API on /graphql, by POST and GET', () => {
    const events = Object.values(fn.Properties.Events as Record<string, { Type: string; Properties: { Path: string; Method: string } }>);
    expect(events.every((event) => event.Type === 'HttpApi')).toBe(true);
    expect(events.map((event) => `${event.Properties.Method.toUpperCase()} ${event.Properties.Path}`).sort()).toEqual(['GET /graphql', 'POST /graphql']);
  });

  it('may use only the item actions it needs, on this table and its indexes only', () => {
    const policies = fn.Properties.Policies as any[];
    // Inline documents only: no SAM policy template or managed policy widens them unseen.
    expect(policies.every((policy) => typeof policy === 'object' && Array.isArray(policy.Statement))).toBe(true);
    const statements = policies.flatMap((policy) => policy.Statement as any[]);
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);

    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(sorted(actions)).toEqual(sorted([
      'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem',
      'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable',
    ]));

    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArns = { 'Fn::Sub': `\${${tableId}.Arn}/index/*` };
    const resources = statements.flatMap((statement) => [statement.Resource].flat());
    expect(resources).toEqual(expect.arrayContaining([tableArn, indexArns]));
    for (const resource of resources) expect([tableArn, indexArns]).toContainEqual(resource);
  });
});
