/**
 * `npm run table:create`: creates the table, GSI1, its stream (NEW_AND_OLD_IMAGES, for the outbox
 * relay) and TTL where missing, against
 * `DYNAMODB_ENDPOINT` or Amazon DynamoDB; changes nothing that exists.
 */
import { bootstrap } from '../../boot/bootstrap';
import { readConfig } from '../../boot/config';
import { runCli } from '../../ops/cli';

const USAGE = 'usage: npm run table:create (TABLE_NAME, DYNAMODB_ENDPOINT or AWS_REGION from the environment)';

runCli(USAGE, async () => {
  const config = readConfig();
  const runtime = await bootstrap(config, { createTable: true });
  try {
    const result = runtime.ensured!;
    const changes = [
      result.created && 'created the table with GSI1 and its stream',
      result.indexAdded && 'added GSI1',
      !result.created && result.streamEnabled && 'enabled the stream (NEW_AND_OLD_IMAGES)',
      result.ttlEnabled && 'enabled TTL on expiresAt',
    ].filter(Boolean);
    console.log(
      `table ${config.tableName} at ${config.endpoint ?? 'Amazon DynamoDB'}: ${changes.length ? changes.join(', ') : 'already as defined, nothing changed'}`,
    );
  } finally {
    await runtime.close();
  }
  return 0;
});
