/**
 * `npm run bench:engine -- deep-condition`: how long the engine takes to evaluate a PutItem whose
 * condition is nested 149 levels deep (`a = :v AND (a = :v AND (...))`, which Amazon accepts;
 * dynalite's generated parser was exponential in the depth, the engine's is memoised), and a
 * GetItem sent at the same moment.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { N, key, setUpTarget } from '@single-table/engine/testing';

export async function deepCondition(depth = 149): Promise<string[]> {
  const target = await setUpTarget('depth');
  const lines: string[] = [];
  try {
    await target.client.send(new PutItemCommand({ TableName: target.tableName, Item: { ...key('a', '1'), a: N(1) } }));
    for (let run = 0; run < 3; run++) {
      const condition = `${'a = :v AND ('.repeat(depth)}a = :v${')'.repeat(depth)}`;
      const started = performance.now();
      const put = target.client
        .send(
          new PutItemCommand({
            TableName: target.tableName,
            Item: key('a', '2'),
            ConditionExpression: condition,
            ExpressionAttributeValues: { ':v': N(1) },
          }),
        )
        .then(
          () => 'accepted',
          (error: Error) => error.name,
        );
      const get = target.client
        .send(new GetItemCommand({ TableName: target.tableName, Key: key('a', '1') }))
        .then(() => performance.now() - started);
      const answer = await put;
      lines.push(
        `depth ${depth}: ${answer} in ${(performance.now() - started).toFixed(1)} ms; a GetItem sent alongside: ${(await get).toFixed(1)} ms`,
      );
    }
    return lines;
  } finally {
    await target.tearDown();
  }
}
