/**
 * `make build-GraphQLFunction` / `make build-RelayFunction` (what `sam build` runs): one Lambda
 * function's bundle, as src/ops/bundle.ts (`lambdaBundle`) defines it.
 */
import { resolve } from 'node:path';
import { lambdaBundle } from '../../ops/bundle';
import { runCli, UsageError } from '../../ops/cli';

const USAGE = 'usage: tsx src/entry/cli/bundle-lambda.ts <entry.ts> <outfile.mjs>';

runCli(USAGE, async () => {
  const [entry, outfile, ...rest] = process.argv.slice(2);
  if (entry === undefined || outfile === undefined || rest.length > 0) throw new UsageError('an entry and an outfile, nothing else');
  await lambdaBundle(resolve(entry), resolve(outfile));
  return 0;
});
