/**
 * `npm run access-patterns [-- --check]`: writes `docs/access-patterns.md` from the model's own
 * declarations (src/model/catalog.ts). `--check` writes nothing and fails when the file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderAccessPatterns } from '../../ops/access-patterns';
import { runCli } from '../../ops/cli';

const USAGE = 'usage: npm run access-patterns [-- --check]';
const target = new URL('../../../docs/access-patterns.md', import.meta.url);

runCli(USAGE, async () => {
  const rendered = renderAccessPatterns();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // a missing file is stale
    }
    if (current !== rendered) {
      console.error('docs/access-patterns.md is stale: run npm run access-patterns and commit it');
      return 1;
    }
    console.log('docs/access-patterns.md is current');
  } else {
    writeFileSync(target, rendered);
    console.log('wrote docs/access-patterns.md');
  }
  return 0;
});
