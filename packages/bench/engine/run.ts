/**
 * `npm run bench:engine -- <gsi-lag [N] | query-memory [N] [--max-old-space-size MB] | deep-condition>`:
 * the embedded engine's own figures (issue 11): GSI lag as a client sees it, the engine's memory
 * under Queries, and the answer time of a pathologically nested condition. Not tests: numbers.
 */
import { parseArgs } from 'node:util';
import { deepCondition } from './deep-condition';
import { gsiLag } from './gsi-lag';
import { queryMemory } from './query-memory';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'max-old-space-size': { type: 'string' } } });
const [what, count] = positionals;
if (what === 'gsi-lag') console.log(await gsiLag(Number(count ?? 300)));
else if (what === 'query-memory') {
  const cap = values['max-old-space-size'] ? Number(values['max-old-space-size']) : undefined;
  for (const line of await queryMemory(Number(count ?? 100_000), cap)) console.log(line);
} else if (what === 'deep-condition') for (const line of await deepCondition()) console.log(line);
else {
  console.error('usage: npm run bench:engine -- gsi-lag [N] | query-memory [N] [--max-old-space-size MB] | deep-condition');
  process.exitCode = 2;
}
