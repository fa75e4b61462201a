/**
 * `npm run build`: the long-running server compiled for a deployment (src/ops/bundle.ts), into
 * `dist/start.mjs` with its schema files and a source map beside it. `node dist/start.mjs` is
 * `npm start` without the TypeScript loader: the same entry (src/entry/cli/start.ts), the same
 * environment; node_modules must be installed beside it (`npm ci --omit=dev` is enough to run it).
 */
import { fileURLToPath } from 'node:url';
import { bundleNodeEntry } from '../../ops/bundle';
import { runCli } from '../../ops/cli';

const USAGE = 'usage: npm run build (no arguments; writes dist/start.mjs)';

runCli(USAGE, async () => {
  const out = await bundleNodeEntry(
    fileURLToPath(new URL('./start.ts', import.meta.url)),
    fileURLToPath(new URL('../../../dist/start.mjs', import.meta.url)),
  );
  console.log(`built ${out}: run it with node --enable-source-maps dist/start.mjs`);
  return 0;
});
