/** `npm run schema:print`: writes the served schema, printed, to `schema.graphql` (the contract snapshot). */
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { buildSchema } from '../../schema';
import { runCli } from '../../ops/cli';

runCli('usage: npm run schema:print', async () => {
  writeFileSync(new URL('../../../schema.graphql', import.meta.url), `${printSchema(buildSchema())}\n`);
  console.log('wrote schema.graphql');
  return 0;
});
