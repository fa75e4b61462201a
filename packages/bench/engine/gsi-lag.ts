/**
 * `npm run bench:engine -- gsi-lag [N]`: the GSI lag a client observes on the embedded engine's
 * default (FAITHFUL) profile: for each of N PutItems, the time from its answer to the first GSI
 * Query that sees it (polled every millisecond).
 */
import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable } from 'single-table-graphql';
import { startEngine } from '@single-table/engine';
import { FAITHFUL } from '@single-table/engine/profiles';
import { clientFor } from '@single-table/engine/testing';
import { percentile } from '../measure';

export async function gsiLag(writes: number): Promise<string> {
  const engine = await startEngine({ ...FAITHFUL });
  const client = clientFor(engine.endpoint);
  try {
    await ensureTable(client, 'lag'); // the product's own table definition: GSI1 as served
    const lags: number[] = [];
    for (let i = 0; i < writes; i++) {
      const keys = { PK: { S: `p${i}` }, SK: { S: 'x' }, GSI1PK: { S: `g${i}` }, GSI1SK: { S: 'x' } };
      await client.send(new PutItemCommand({ TableName: 'lag', Item: keys }));
      const acknowledged = performance.now();
      for (;;) {
        const { Count } = await client.send(
          new QueryCommand({
            TableName: 'lag',
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :g',
            ExpressionAttributeValues: { ':g': keys.GSI1PK },
          }),
        );
        if (Count) break;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      lags.push(performance.now() - acknowledged);
    }
    const sorted = [...lags].sort((a, b) => a - b);
    const ms = (p: number) => percentile(sorted, p).toFixed(1);
    return `GSI lag over ${writes} writes (gsiLagMs ${FAITHFUL.gsiLagMs}): p50 ${ms(50)} ms, p99 ${ms(99)} ms, max ${ms(100)} ms`;
  } finally {
    client.destroy();
    await engine.close();
  }
}
