/**
 * The outbox relay in template.yaml (docs/events.md): a function of its own bundle on the
 * table's stream (TRIM_HORIZON, outbox INSERTs only, partial batch responses, bisection, bounded
 * retries, an SQS dead-letter destination), publishing to the stack's EventBridge bus, with a role
 * of its own that may do exactly that. Pure: the template is parsed, nothing is deployed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { root, template } from './support/template';
import { readConfig } from '../src/boot/config';
import { STATS_ATTRIBUTES } from '../src/model/customer-stats';

const resources = Object.entries(template.Resources);
const idOf = (type: string) => resources.filter(([, resource]) => resource.Type === type).map(([id]) => id);
const [tableId] = idOf('AWS::DynamoDB::Table');
const relayEntry = resources.find(([, resource]) => resource.Properties.Handler === 'lambda-relay.handler');
const [relayId, relay] = relayEntry ?? ['', { Type: '', Properties: {} as Record<string, any> }];

describe('the outbox relay in template.yaml', () => {
  it('is a function of its own bundle, the Makefile target `sam build` runs', () => {
    expect(relay.Type).toBe('AWS::Serverless::Function');
    expect(relay.Metadata).toEqual({ BuildMethod: 'makefile' });
    const makefile = readFileSync(`${root}/Makefile`, 'utf8');
    expect(makefile).toMatch(new RegExp(`^build-${relayId}:`, 'm'));
    expect(makefile).toContain('$(BUNDLE) src/entry/lambda-relay.ts $(ARTIFACTS_DIR)/lambda-relay.mjs');
  });

  it('reads the table, publishes to the stack bus, and starts from its environment without an identity provider', () => {
    const variables = relay.Properties.Environment.Variables as Record<string, unknown>;
    const [busId] = idOf('AWS::Events::EventBus');
    expect(variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, NODE_ENV: 'production', EVENT_BUS_NAME: { Ref: busId } });
    expect(variables.DYNAMODB_ENDPOINT).toBeUndefined();
    const config = readConfig({ ...variables, TABLE_NAME: 'app', EVENT_BUS_NAME: 'bus' } as NodeJS.ProcessEnv, { auth: false });
    expect(config.relay).toMatchObject({ eventBusName: 'bus', eventSource: 'single-table-graphql' });
  });

  it("is invoked by the table's stream: from TRIM_HORIZON, outbox INSERTs only, partial batches, bisection, bounded retries, an SQS dead letter", () => {
    const events = Object.values(relay.Properties.Events as Record<string, { Type: string; Properties: Record<string, any> }>);
    expect(events).toHaveLength(1);
    const [source] = events;
    expect(source!.Type).toBe('DynamoDB');
    const p = source!.Properties;
    expect(p.Stream).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    expect(p.StartingPosition).toBe('TRIM_HORIZON');
    expect(p.BisectBatchOnFunctionError).toBe(true);
    expect(p.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(p.MaximumRetryAttempts).toBeGreaterThanOrEqual(1);
    expect(p.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(p.ParallelizationFactor).toBe(1);
    const [queueId] = idOf('AWS::SQS::Queue');
    expect(p.DestinationConfig).toEqual({ OnFailure: { Type: 'SQS', Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } });
    const filter = JSON.parse(p.FilterCriteria.Filters[0].Pattern as string);
    expect(filter).toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['EVENT'] } } } });
  });

  it('has a role of its own allowing exactly: this stream, the stats on customer profiles, this bus, this queue, its logs', () => {
    expect(relay.Properties.Policies).toBeUndefined(); // no SAM policy template or managed policy widens the role
    const roleRef = relay.Properties.Role as { 'Fn::GetAtt': [string, string] };
    const role = template.Resources[roleRef['Fn::GetAtt'][0]]!;
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = (role.Properties.Policies as any[]).flatMap((policy) => policy.PolicyDocument.Statement as any[]);
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);
    const byAction = Object.fromEntries(statements.flatMap((s) => [s.Action].flat().map((action: string) => [action, s])));
    expect(Object.keys(byAction).sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:UpdateItem',
        'events:PutEvents',
        'sqs:SendMessage',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ].sort(),
    );
    for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'])
      expect(byAction[action].Resource).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    const update = byAction['dynamodb:UpdateItem'];
    expect(update.Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
    expect(update.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys']).toEqual(['CUSTOMER#*']);
    expect([...update.Condition['ForAllValues:StringEquals']['dynamodb:Attributes']].sort()).toEqual(
      ['PK', 'SK', ...STATS_ATTRIBUTES].sort(),
    );
    const [busId] = idOf('AWS::Events::EventBus');
    expect(byAction['events:PutEvents'].Resource).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    for (const resource of statements.map((s) => s.Resource)) expect(JSON.stringify(resource)).not.toContain('"*"');
  });

  it('names the bus and the dead-letter queue in its outputs', () => {
    expect(template.Outputs.EventBusName.Value).toEqual({ Ref: idOf('AWS::Events::EventBus')[0] });
    expect(template.Outputs.RelayDeadLetterQueueUrl.Value).toEqual({ Ref: idOf('AWS::SQS::Queue')[0] });
  });
});
