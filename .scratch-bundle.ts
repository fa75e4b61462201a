import { spawnSync } from 'node:child_process';
import { startEngine } from './src/engine/embedded';
import { createDocumentClient } from './src/dynamo/client';
import { ensureTable } from './src/dynamo/definition';
const engine = await startEngine();
const doc = createDocumentClient({ endpoint: engine.endpoint, region: 'us-east-1' });
await ensureTable(doc, 'app');
const event = { version: '2.0', routeKey: 'POST /graphql', rawPath: '/graphql', rawQueryString: '', headers: { 'content-type': 'application/json' },
  requestContext: { requestId: 'abc=', http: { method: 'POST', path: '/graphql' } }, body: JSON.stringify({ query: 'mutation { createCustomer(input: {name: "A", email: "a@b.co"}) { id name } }' }), isBase64Encoded: false };
const script = `const m = await import('/tmp/art/lambda.mjs'); console.log(Object.keys(m)); const r = await m.handler(${JSON.stringify(event)}, { awsRequestId: 'x' }); console.log(JSON.stringify(r));`;
const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, DYNAMODB_ENDPOINT: engine.endpoint, NODE_ENV: 'production', LOG_LEVEL: 'info' }, encoding: 'utf8' });
console.log(out.status, out.stdout, out.stderr.slice(0, 2000));
await engine.close();
