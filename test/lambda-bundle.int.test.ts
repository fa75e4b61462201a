/**
 * The deployable artifact: built with the Makefile target that `sam build` runs and invoked in a
 * plain Node process, so the template's handler (`lambda.handler`) is what works, with the API
 * Gateway events of test/fixtures/lambda and a JWKS the test serves (shared setup:
 * test/support/lambda.ts). The handler's behaviour in detail is test/lambda-handler.int.test.ts's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildASTSchema, printSchema, type DocumentNode } from 'graphql';
import { VALIDATED_SDL_FILE, buildSchema, validatedSdl } from '../src/schema';
import { bundleInputs, ISO, parse, root, startLambdaTestbed, ULID, type LambdaTestbed } from './support/lambda';

let bed: LambdaTestbed;

beforeAll(async () => {
  bed = await startLambdaTestbed('bundle-app');
});

afterAll(async () => {
  await bed?.close();
});

describe('the deployable bundle (the Makefile target that `sam build` runs)', () => {
  const artifacts = mkdtempSync(join(tmpdir(), 'lambda-artifacts-'));
  afterAll(() => rmSync(artifacts, { recursive: true, force: true }));

  beforeAll(async () => {
    await promisify(execFile)('make', ['-s', 'build-GraphQLFunction', `ARTIFACTS_DIR=${artifacts}`], { cwd: root });
  });

  /** Loads `lambda.mjs` in a plain Node process, as the runtime does, and invokes it once per event. */
  async function invokeBundle(events: APIGatewayProxyEventV2[]) {
    const driver = `
      const events = JSON.parse(process.env.EVENTS);
      const module = await import(${JSON.stringify(join(artifacts, 'lambda.mjs'))});
      const results = [];
      for (const event of events) results.push(await module.handler(event, { awsRequestId: 'bundle', getRemainingTimeInMillis: () => 25000 }));
      process.stdout.write(JSON.stringify({ exports: Object.keys(module), results }));
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', driver], {
      cwd: artifacts,
      env: {
        PATH: process.env.PATH,
        EVENTS: JSON.stringify(events),
        DYNAMODB_ENDPOINT: bed.engine.endpoint,
        TABLE_NAME: 'bundle-app',
        NODE_ENV: 'production',
        AWS_REGION: 'eu-west-1',
        LOG_LEVEL: 'silent',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...bed.idp.env(),
      },
    });
    return JSON.parse(stdout) as { exports: string[]; results: APIGatewayProxyStructuredResultV2[] };
  }

  it('exports lambda.handler, writes and reads through it, and answers errors as JSON', async () => {
    const events = ['create-customer.post', 'customer-by-email.post', 'malformed-body.post', 'bad-input.post'].map((name) =>
      bed.fixture(name),
    );
    const forged = `${bed.staffToken.slice(0, bed.staffToken.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
    events.push(bed.fixture('customer-by-email.post', null), bed.fixture('customer-by-email.post', forged));
    const { exports, results } = await invokeBundle(events);
    expect(exports).toEqual(['handler']);
    const [create, read, malformed, bad, anonymous, forgedAnswer] = results.map((result) => parse(result!));
    expect(create!.statusCode).toBe(200);
    const customer = (create!.body as any).data.createCustomer;
    expect(customer).toEqual({
      id: expect.stringMatching(ULID),
      name: 'Lambda Lucía',
      email: 'Lucia.Lambda@example.com',
      createdAt: expect.stringMatching(ISO),
    });
    expect(read!.body).toEqual({
      data: { customerByEmail: { ...customer, addresses: [], orders: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } },
    });
    expect(malformed!.statusCode).toBe(400);
    expect((malformed!.body as any).errors[0].extensions.code).toBe('BAD_REQUEST');
    expect((bad!.body as any).errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.email' });
    for (const [refused, challenge] of [
      [anonymous, 'Bearer'],
      [forgedAnswer, 'Bearer error="invalid_token"'],
    ] as const) {
      expect(refused!.statusCode).toBe(401);
      expect(refused!.headers['www-authenticate']).toBe(challenge);
      expect((refused!.body as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('carries the SDL parsed and validated beside it, which the handler builds its schema from', async () => {
    const carried = readFileSync(join(artifacts, VALIDATED_SDL_FILE), 'utf8');
    expect(carried).toBe(validatedSdl());
    const prebuilt = buildASTSchema(JSON.parse(carried) as DocumentNode, { assumeValidSDL: true });
    expect(printSchema(prebuilt)).toBe(printSchema(buildSchema()));
  });

  it("never contains the embedded engine: it is not in the handler's import graph", async () => {
    const inputs = await bundleInputs('src/entry/lambda.ts');
    expect(inputs).toContain('src/entry/lambda.ts');
    expect(
      inputs.filter(
        (input) =>
          /^(packages\/engine|src\/engine)\//.test(input) ||
          /node_modules\/(@single-table\/engine|dynalite|classic-level|memory-level|level)\//.test(input),
      ),
    ).toEqual([]);
  });

  it('holds one build of each package: the integration requires the ES build of Apollo, graphql-js is ES modules only, hashing is node:crypto', async () => {
    const inputs = await bundleInputs('src/entry/lambda.ts');
    expect(inputs.filter((input) => /node_modules\/@apollo\/server\/dist\/esm\/ApolloServer\.js$/.test(input))).toHaveLength(1);
    expect(
      inputs.filter((input) =>
        /node_modules\/(@apollo\/server\/dist\/cjs|@graphql-tools\/[^/]+\/cjs|lru-cache\/dist\/commonjs|sha\.js)\//.test(input),
      ),
    ).toEqual([]);
    // graphql-js as ES modules only: a deep import of a CommonJS file would make a second GraphQLError class.
    expect(inputs.filter((input) => /node_modules\/graphql\/.*\.js$/.test(input))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/graphql\/.*\.mjs$/.test(input)).length).toBeGreaterThan(100);
  });

  // The subscription resolvers' shared settings (src/hub/live.ts) stay: the schema is the same on every transport.
  it('holds nothing Lambda does not run: no WebSocket or subscription server, no event hub, no explorer, no node:http server', async () => {
    const inputs = await bundleInputs('src/entry/lambda.ts');
    expect(inputs).toContain('src/http/apollo.ts');
    expect(
      inputs.filter(
        (input) =>
          /^src\/(live|dev)\//.test(input) ||
          /^src\/hub\/(hub|stream)\.ts$/.test(input) ||
          input === 'src/http/server.ts' ||
          /node_modules\/(ws|graphql-ws)\//.test(input),
      ),
    ).toEqual([]);
  });
});
