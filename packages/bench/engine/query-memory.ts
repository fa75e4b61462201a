/**
 * `npm run bench:engine -- query-memory [N] [--max-old-space-size MB]`: the RSS of a separate
 * `npm run engine` process (on disk, default profile) every 20,000 Queries, 8 clients at once. With
 * a V8 heap cap the process must keep serving (a leak would end it out of memory); without one, V8
 * grows its heap lazily and RSS rises long before any collection is due.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { clientFor, createTestTable, startCli } from '@single-table/engine/testing';

export async function queryMemory(queries: number, maxOldSpaceMb: number | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  const flags = maxOldSpaceMb ? [`--max-old-space-size=${maxOldSpaceMb}`] : [];
  const cli = await startCli(['--port', '0', '--path', dir, '--ttl-sweep-seconds', '0'], flags);
  const { process: child, endpoint } = cli;
  const lines: string[] = [];
  try {
    const rssMb = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024);
    const client = clientFor(endpoint);
    await createTestTable(client, 'rss');
    for (let i = 0; i < 200; i++) {
      const item = { PK: { S: `p${i % 20}` }, SK: { S: `s${i}` }, pad: { S: 'x'.repeat(500) } };
      await client.send(new PutItemCommand({ TableName: 'rss', Item: item }));
    }
    lines.push(`engine RSS after seeding: ${rssMb()} MB${maxOldSpaceMb ? ` (V8 old space capped at ${maxOldSpaceMb} MB)` : ''}`);
    let next = 0;
    const worker = async () => {
      while (next < queries) {
        const i = next++;
        await client.send(
          new QueryCommand({
            TableName: 'rss',
            KeyConditionExpression: 'PK = :p',
            ExpressionAttributeValues: { ':p': { S: `p${i % 20}` } },
            ...(i % 3 === 0 ? { Limit: 3 } : {}),
          }),
        );
        if ((i + 1) % 20_000 === 0) lines.push(`after ${i + 1} Queries: ${rssMb()} MB RSS`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    client.destroy();
    return lines;
  } finally {
    child.kill('SIGTERM');
    await cli.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
