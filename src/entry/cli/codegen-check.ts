/**
 * `npm run codegen:check`: regenerates the codegen output in memory and fails when it differs
 * from the committed file, so generated types can never drift from `src/schema/*.graphql`.
 */
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { runCli } from '../../ops/cli';

const USAGE = 'usage: npm run codegen:check';

runCli(USAGE, async () => {
  const files = await generate({ ...(await loadConfig()), cwd: process.cwd() }, false);
  let stale = 0;
  for (const file of files) {
    const committed = readFileSync(file.filename, 'utf8');
    if (committed !== file.content) {
      stale++;
      console.error(`${file.filename} is stale: run npm run codegen and commit the result`);
    }
  }
  if (stale > 0) return 1;
  console.log(`codegen output is current (${files.length} file${files.length === 1 ? '' : 's'})`);
  return 0;
});

async function loadConfig() {
  const { parse } = await import('yaml');
  return parse(readFileSync('codegen.yml', 'utf8'));
}
