/**
 * template.yaml (AWS SAM) against the code: the table it deploys is the table `npm run
 * table:create` makes (`tableDefinition()`), and the function may touch that table and its
 * indexes only. The HTTP API checks tokens at the edge against the same issuer and audience the
 * function verifies (both from the same parameters), every route needs the token, CORS is
 * what src/admission/cors.ts does, and the API is throttled. Pure: the template is parsed, nothing is deployed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tableDefinition, TTL_ATTRIBUTE } from '../src/dynamo/definition';
import { readConfig } from '../src/boot/config';
import { root, template, type Resource } from './support/template';
import { CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS, CORS_REQUEST_HEADERS } from '../src/admission/cors';

function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

const tables = resourcesOf('AWS::DynamoDB::Table');
const [tableId, table] = tables[0] ?? ['', { Type: '', Properties: {} }];
const functions = resourcesOf('AWS::Serverless::Function');
const [functionId, fn] = functions.find(([, resource]) => resource.Properties.Handler === 'lambda.handler') ?? [
  '',
  { Type: '', Properties: {} },
];
/** The outbox relay on the table's stream (test/template-relay.test.ts checks it). */
const [relayId] = functions.find(([, resource]) => resource.Properties.Handler === 'lambda-relay.handler') ?? [''];
const expected = tableDefinition('app');

const byName = <T extends { AttributeName?: string | undefined }>(list: readonly T[] = []) =>
  [...list].sort((a, b) => String(a.AttributeName).localeCompare(String(b.AttributeName)));
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
    const normalise = (indexes: any[] = []) =>
      [...indexes]
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

  it('streams every change with its old and new images, as table:create enables it', () => {
    expect(expected.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    // CloudFormation's StreamSpecification has only the view type: declaring it enables the stream.
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: expected.StreamSpecification?.StreamViewType });
  });
});

describe('the function in template.yaml', () => {
  it('is one Node.js function whose handler is the bundle the Makefile builds', () => {
    // The GraphQL function, and the outbox relay (checked in test/template-relay.test.ts).
    expect(functions.map(([id]) => id).sort()).toEqual([functionId, relayId].sort());
    expect(['nodejs20.x', 'nodejs22.x']).toContain(fn.Properties.Runtime);
    expect(fn.Properties.Handler).toBe('lambda.handler');
    expect(fn.Metadata).toEqual({ BuildMethod: 'makefile' });
    const makefile = readFileSync(`${root}/Makefile`, 'utf8');
    expect(makefile).toMatch(new RegExp(`^build-${functionId}:`, 'm'));
    expect(makefile).toContain('$(BUNDLE) src/entry/lambda.ts $(ARTIFACTS_DIR)/lambda.mjs');
  });

  it('is configured for production on this table', () => {
    expect(fn.Properties.Environment.Variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, NODE_ENV: 'production' });
    expect(fn.Properties.Environment.Variables.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('is reached through an HTTP API on /graphql, by POST and GET', () => {
    const events = Object.values(fn.Properties.Events as Record<string, { Type: string; Properties: { Path: string; Method: string } }>);
    expect(events.every((event) => event.Type === 'HttpApi')).toBe(true);
    expect(events.map((event) => `${event.Properties.Method.toUpperCase()} ${event.Properties.Path}`).sort()).toEqual([
      'GET /graphql',
      'POST /graphql',
    ]);
  });

  it('may use only the item actions it needs, on this table and its indexes only', () => {
    const policies = fn.Properties.Policies as any[];
    // Inline documents only: no SAM policy template or managed policy widens them unseen.
    expect(policies.every((policy) => typeof policy === 'object' && Array.isArray(policy.Statement))).toBe(true);
    const statements = policies.flatMap((policy) => policy.Statement as any[]);
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);

    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(sorted(actions)).toEqual(
      sorted([
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DescribeTable',
      ]),
    );

    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArns = { 'Fn::Sub': `\${${tableId}.Arn}/index/*` };
    const resources = statements.flatMap((statement) => [statement.Resource].flat());
    expect(resources).toEqual(expect.arrayContaining([tableArn, indexArns]));
    for (const resource of resources) expect([tableArn, indexArns]).toContainEqual(resource);
  });
});

/**
 * The value CloudFormation would give an expression for these parameter values (Ref, Fn::Sub,
 * Fn::If, Fn::Join, Fn::Equals; a resource's Ref is `<LogicalId>`, the region `eu-west-1`).
 */
function evaluate(value: unknown, parameters: Record<string, string>): any {
  const ref = (name: string): string | string[] => {
    if (name === 'AWS::Region') return 'eu-west-1';
    if (name === 'AWS::StackName') return 'stack';
    if (name in template.Parameters) {
      const given = parameters[name] ?? template.Parameters[name]?.Default;
      if (given === undefined) throw new Error(`parameter ${name} has no value and no default`);
      return template.Parameters[name]?.Type === 'CommaDelimitedList' ? String(given).split(',') : String(given);
    }
    if (name in template.Resources) return `<${name}>`;
    throw new Error(`unknown reference ${name}`);
  };
  if (Array.isArray(value)) return value.map((item) => evaluate(item, parameters));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const [name, argument] = entries[0] ?? [];
  if (entries.length === 1 && name === 'Ref') return ref(argument as string);
  if (entries.length === 1 && name === 'Fn::Sub')
    return (argument as string).replace(/\$\{([^}]+)\}/g, (_, key: string) => String(ref(key)));
  if (entries.length === 1 && name === 'Fn::Join') {
    const [separator, list] = argument as [string, unknown];
    return (evaluate(list, parameters) as string[]).join(separator);
  }
  if (entries.length === 1 && name === 'Fn::Equals') {
    const [a, b] = argument as [unknown, unknown];
    return evaluate(a, parameters) === evaluate(b, parameters);
  }
  if (entries.length === 1 && name === 'Fn::If') {
    const [condition, yes, no] = argument as [string, unknown, unknown];
    return evaluate(evaluate(template.Conditions[condition], parameters) ? yes : no, parameters);
  }
  if (name?.startsWith('Fn::')) throw new Error(`cannot evaluate ${name}`);
  return Object.fromEntries(entries.map(([key, item]) => [key, evaluate(item, parameters)]));
}

const apis = resourcesOf('AWS::Serverless::HttpApi');
const [apiId, api] = apis[0] ?? ['', { Type: '', Properties: {} }];
const env = () => fn.Properties.Environment.Variables as Record<string, unknown>;
const authorizers = () =>
  api.Properties.Auth.Authorizers as Record<string, { IdentitySource: string; JwtConfiguration: { issuer: unknown; audience: unknown[] } }>;
const ownIssuer = {
  CreateUserPool: 'false',
  AuthIssuer: 'https://idp.example.com/tenant',
  AuthAudience: 'api-client',
  CorsOrigins: 'https://app.example.com',
};
const withUserPool = { CreateUserPool: 'true', AuthIssuer: '', AuthAudience: '', CorsOrigins: 'https://app.example.com' };

describe('the HTTP API in template.yaml: tokens at the edge, the same issuer as the function', () => {
  it('is one HTTP API with one JWT authorizer on the Authorization header, the default of every route', () => {
    expect(apis.map(([id]) => id)).toEqual([apiId]);
    const names = Object.keys(authorizers());
    expect(names).toHaveLength(1);
    expect(api.Properties.Auth.DefaultAuthorizer).toBe(names[0]);
    expect(authorizers()[names[0] as string]?.IdentitySource).toBe('$request.header.Authorization');
  });

  it('protects every route with that authorizer: no event opts out', () => {
    const name = Object.keys(authorizers())[0];
    const events = functions
      .filter(([id]) => id !== relayId)
      .flatMap(([, resource]) =>
        Object.values((resource.Properties.Events ?? {}) as Record<string, { Type: string; Properties: Record<string, any> }>),
      );
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.Type).toBe('HttpApi');
      expect(event.Properties.ApiId).toEqual({ Ref: apiId }); // not SAM's implicit, unprotected API
      expect(event.Properties.Auth?.Authorizer).toBe(name);
    }
    expect(template.Outputs.GraphQLUrl.Value['Fn::Sub']).toContain(`\${${apiId}}`);
  });

  it.each([
    ['an issuer of your own (AuthIssuer, AuthAudience)', ownIssuer],
    ['the Cognito user pool it creates', withUserPool],
  ])(
    'gives the authorizer and the function the same issuer and audience, with %s, and the JWKS at <issuer>/.well-known/jwks.json',
    (_, parameters) => {
      const jwt = evaluate(Object.values(authorizers())[0]?.JwtConfiguration, parameters) as { issuer: string; audience: string[] };
      const variables = evaluate(env(), parameters) as Record<string, string>;
      expect(variables.AUTH_ISSUER).toBe(jwt.issuer);
      expect(jwt.audience).toEqual([variables.AUTH_AUDIENCE]);
      expect(variables.AUTH_JWKS_URL).toBe(`${jwt.issuer}/.well-known/jwks.json`);
      if (parameters.CreateUserPool === 'true') {
        expect(jwt.issuer).toBe('https://cognito-idp.eu-west-1.amazonaws.com/<UserPool>');
        expect(jwt.audience).toEqual(['<UserPoolClient>']);
      } else {
        expect(jwt.issuer).toBe(parameters.AuthIssuer);
        expect(jwt.audience).toEqual([parameters.AuthAudience]);
      }
      // What the function reads from them is a production configuration that starts.
      const config = readConfig({ ...variables, NODE_ENV: 'production' });
      expect(config.auth).toMatchObject({ jwksUrl: variables.AUTH_JWKS_URL, issuer: jwt.issuer, audience: jwt.audience[0] });
    },
  );

  it('refuses to deploy without an issuer and audience unless it creates the user pool', () => {
    expect(template.Parameters.CreateUserPool?.AllowedValues?.sort()).toEqual(['false', 'true']);
    const rules = Object.values(template.Rules);
    const asserted = rules.flatMap((rule) =>
      (rule.Assertions as Array<{ Assert: unknown }>).map((assertion) => JSON.stringify(assertion.Assert)),
    );
    expect(asserted).toEqual(expect.arrayContaining([expect.stringContaining('AuthIssuer'), expect.stringContaining('AuthAudience')]));
    for (const rule of rules) expect(evaluate(rule.RuleCondition, { ...ownIssuer, CreateUserPool: 'false' })).toBe(true);
  });

  it('creates a user pool whose tokens carry the claims src/auth reads, and whose users cannot set their own customer id', () => {
    const claims = readConfig({}).auth;
    const pools = resourcesOf('AWS::Cognito::UserPool');
    const clients = resourcesOf('AWS::Cognito::UserPoolClient');
    const groups = resourcesOf('AWS::Cognito::UserPoolGroup');
    for (const [, resource] of [...pools, ...clients, ...groups]) expect(resource.Condition).toBe('CreatesUserPool');
    const schema = pools[0]?.[1].Properties.Schema as Array<{ Name: string }>;
    expect(schema.map((attribute) => `custom:${attribute.Name}`)).toContain(claims.customer);
    expect(clients[0]?.[1].Properties.ReadAttributes).toContain(claims.customer);
    expect(clients[0]?.[1].Properties.WriteAttributes).not.toContain(claims.customer);
    expect(clients[0]?.[1].Properties.GenerateSecret).toBe(false);
    expect(groups.map(([, group]) => group.Properties.GroupName)).toEqual([claims.staffGroup]);
  });
});

describe('CORS and throttling in template.yaml', () => {
  const cors = () => api.Properties.DefinitionBody['x-amazon-apigateway-cors'] as Record<string, any>;

  it('takes the allowed origins from the CorsOrigins parameter, for API Gateway and for the function alike', () => {
    expect(template.Parameters.CorsOrigins?.Type).toBe('CommaDelimitedList');
    expect(cors().allowOrigins).toEqual({ Ref: 'CorsOrigins' });
    // SAM's CorsConfiguration would drop a parameter reference in AllowOrigins: not used.
    expect(api.Properties.CorsConfiguration).toBeUndefined();
    const parameters = { ...ownIssuer, CorsOrigins: 'https://app.example.com,https://admin.example.com' };
    const origins = evaluate(cors().allowOrigins, parameters);
    expect(origins).toEqual(['https://app.example.com', 'https://admin.example.com']);
    const variables = evaluate(env(), parameters) as Record<string, string>;
    expect(readConfig({ ...variables, NODE_ENV: 'production' }).corsOrigins).toEqual(origins);
  });

  it('allows what src/admission/cors.ts allows: methods, request headers, exposed headers, max age, no credentials', () => {
    expect(cors().allowMethods).toEqual(CORS_METHODS.split(', '));
    expect(cors().allowHeaders).toEqual(CORS_REQUEST_HEADERS);
    expect(cors().exposeHeaders).toEqual(CORS_EXPOSED_HEADERS);
    expect(cors().maxAge).toBe(CORS_MAX_AGE_SECONDS);
    expect(cors().allowCredentials).toBe(false);
  });

  it('throttles every route from the ThrottlingRateLimit and ThrottlingBurstLimit parameters', () => {
    expect(api.Properties.DefaultRouteSettings).toEqual({
      ThrottlingBurstLimit: { Ref: 'ThrottlingBurstLimit' },
      ThrottlingRateLimit: { Ref: 'ThrottlingRateLimit' },
    });
    for (const name of ['ThrottlingBurstLimit', 'ThrottlingRateLimit']) {
      const parameter = template.Parameters[name];
      expect(parameter?.Type).toBe('Number');
      expect(parameter?.MinValue).toBeGreaterThanOrEqual(1);
      expect(Number(parameter?.Default)).toBeGreaterThan(0);
    }
  });
});
