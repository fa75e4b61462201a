/**
 * `npm run explorer:build`: builds the development explorer's bundle (src/dev/explorer/build.ts) now,
 * whatever its age. Optional: `npm start` builds it on the first page load when it is missing or
 * older than its sources.
 */
import { buildExplorer } from '../../dev/explorer/build';
import { runCli } from '../../ops/cli';

runCli('usage: npm run explorer:build', async () => {
  const startedAt = performance.now();
  const files = await buildExplorer();
  console.log(`explorer bundle built in ${Math.round(performance.now() - startedAt)} ms: ${files.join(', ')}`);
  return 0;
});
