/**
 * `npm run bench:cold`: the Lambda handler's bundle size and cold start, beside a raw SDK handler's.
 *
 * The product's bundle is the Makefile's (`make build-GraphQLFunction`, what `sam build` runs); the
 * raw handler and the experiment are bundled with the same esbuild options (`LAMBDA_BUILD`, src/ops/bundle.ts:
 * one minified ESM file, the AWS SDK inside). A cold start is measured in a fresh `node` process per round, as a new Lambda container
 * runs it: from before the bundle's `import()` to the first invocation's answer. The product's
 * first invocation is `{ __typename }` over API Gateway's payload 2.0, in production mode (tokens
 * verified against a local JWKS, which an anonymous `__typename` never needs); the raw handler's is
 * one GetItem through the DocumentClient. Both talk to the embedded engine on loopback. The figure
 * is the median of the rounds (flag `--rounds N`, default 9), with the spread.
 */
import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { exportJWK, generateKeyPair } from 'jose';
import { startEngine } from '@single-table/engine';
import { createDocumentClient, ensureTable, LAMBDA_BUILD, silenceSdkNodeVersionNotice } from 'single-table-graphql';

silenceSdkNodeVersionNotice();
const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 9;
const TABLE = 'cold-start';

/**
 * The experiment's variant: the product's handler with src/http/interpreted.ts replaced by the
 * long-running server's graphql-jit gateway (src/http/execution.ts), so graphql-jit (with ajv,
 * fast-json-stringify, fast-uri) is bundled. Not a product build: what jit would cost on the cold path.
 */
const withJit: Plugin = {
  name: 'with-graphql-jit',
  setup(builder) {
    builder.onResolve({ filter: /\/interpreted$/ }, (args) =>
      args.importer.endsWith(join('src', 'http', 'apollo.ts')) ? { path: 'interpreted', namespace: 'with-jit' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'with-jit' }, () => ({
      contents: `export { compiledExecution as interpretedExecution } from ${JSON.stringify(join(root, 'src/http/execution.ts'))};`,
      loader: 'ts',
      resolveDir: root,
    }));
  },
};

/** The product's bundle, built by the Makefile target `sam build` runs: one definition of the build. */
async function makeBundle(outdir: string): Promise<string> {
  await promisify(execFile)('make', ['-s', 'build-GraphQLFunction', `ARTIFACTS_DIR=${outdir}`], { cwd: root });
  return join(outdir, 'lambda.mjs');
}

/** The Lambda bundle's esbuild options (src/ops/bundle.ts), for the raw handler and the experiment. */
async function bundle(entry: string, outdir: string, name: string, plugins: Plugin[] = []): Promise<string> {
  const outfile = join(outdir, `${name}.mjs`);
  await build({ ...LAMBDA_BUILD, plugins: [...plugins, ...(LAMBDA_BUILD.plugins ?? [])], entryPoints: [entry], outfile });
  return outfile;
}

const RAW_HANDLER = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION }));
export async function handler() {
  const { Item } = await doc.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'COLD', SK: 'START' } }));
  return { statusCode: 200, body: JSON.stringify({ found: Item !== undefined }) };
}
`;

const EVENT = {
  version: '2.0',
  routeKey: 'POST /graphql',
  rawPath: '/graphql',
  rawQueryString: '',
  headers: { 'content-type': 'application/json', accept: 'application/json', host: 'cold.example.com' },
  requestContext: {
    accountId: '123456789012',
    apiId: 'cold',
    domainName: 'cold.example.com',
    domainPrefix: 'cold',
    http: { method: 'POST', path: '/graphql', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bench' },
    requestId: 'cold-start',
    routeKey: 'POST /graphql',
    stage: '$default',
    time: '02/Dec/2026:10:00:00 +0000',
    timeEpoch: 1_796_205_600_000,
  },
  body: JSON.stringify({ query: '{ __typename }' }),
  isBase64Encoded: false,
};

/** One cold start in a fresh process: ms from before the import to the first answer, and its status. */
function coldStart(file: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; status: number }> {
  const script = `
    const started = performance.now();
    const { handler } = await import(${JSON.stringify(file)});
    const answer = await handler(${JSON.stringify(EVENT)}, { awsRequestId: 'cold', getRemainingTimeInMillis: () => 30000 });
    process.stdout.write(JSON.stringify({ ms: performance.now() - started, status: answer.statusCode }));
    process.exit(0);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`cold start exited ${code}: ${out}`))));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
const engine = await startEngine({ host: '127.0.0.1', port: 0 });
const { publicKey } = await generateKeyPair('RS256');
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'cold', alg: 'RS256', use: 'sig' }] });
const idp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
try {
  const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'eu-west-1' });
  await ensureTable(doc, TABLE);
  doc.destroy();
  const product = await makeBundle(dir); // copies the schema files beside it too
  const jit = await bundle(join(root, 'src/entry/lambda.ts'), dir, 'lambda-with-jit', [withJit]);
  const rawEntry = join(root, 'packages/bench', '.cold-raw-handler.ts');
  writeFileSync(rawEntry, RAW_HANDLER);
  const raw = await bundle(rawEntry, dir, 'raw').finally(() => rmSync(rawEntry));

  const port = (idp.address() as { port: number }).port;
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    DYNAMODB_ENDPOINT: engine.endpoint,
    TABLE_NAME: TABLE,
    LOG_LEVEL: 'silent',
    AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
    AUTH_ISSUER: 'https://issuer.example.com',
    AUTH_AUDIENCE: 'cold',
  };
  const runs = { product: [] as number[], jit: [] as number[], raw: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, file] of [
      ['product', product],
      ['jit', jit],
      ['raw', raw],
    ] as const) {
      const { ms, status } = await coldStart(file, env);
      if (status !== 200) throw new Error(`${name}: the first invocation answered ${status}`);
      runs[name].push(ms);
    }
  }
  const size = (file: string) => statSync(file).size;
  const row = (name: keyof typeof runs, file: string) =>
    `${name.padEnd(12)} ${(size(file) / 1e6).toFixed(2)} MB  cold start median ${median(runs[name]).toFixed(0)} ms (min ${Math.min(...runs[name]).toFixed(0)}, max ${Math.max(...runs[name]).toFixed(0)})`;
  console.log(`Lambda cold start, import + first invocation, ${rounds} rounds, ${new Date().toISOString()}`);
  console.log(row('product', product));
  console.log(`${row('jit', jit)}  (experiment: the same handler executing with graphql-jit, as the server does)`);
  console.log(row('raw', raw));
  const ratio = (file: string, name: keyof typeof runs) =>
    `${(median(runs[name]) / median(runs.raw)).toFixed(2)}× the raw SDK handler's cold start, bundle ${(size(file) / size(raw)).toFixed(2)}×`;
  console.log(`product      ${ratio(product, 'product')}`);
  console.log(`jit          ${ratio(jit, 'jit')}`);
} finally {
  idp.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
