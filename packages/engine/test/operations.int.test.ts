/**
 * The README's table of operations is what the engine answers: each operation it calls served is
 * routed to a handler (an empty request is refused for its missing members, not as unknown), and
 * each it calls not implemented is refused with 400 UnknownOperationException, never a silent
 * success. Embedded only: Amazon serves them all.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EmbeddedEngine } from '../src/embedded';
import { external } from './support';

/** The table's rows: every backticked operation name, with the row's verdict and API. */
function operationsTable(): { operation: string; served: boolean; streams: boolean }[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Operations'), readme.indexOf('## What it promises'));
  return section
    .split('\n')
    .filter((line) => /^\| .*`[A-Z]/.test(line))
    .flatMap((line) => {
      const [names = '', verdict = ''] = line.split('|').slice(1);
      const served = verdict.trim().startsWith('served');
      return [...names.matchAll(/`([A-Za-z]+)`/g)].map(([, operation]) => ({
        operation: operation as string,
        served,
        streams: names.trim().startsWith('Streams:'),
      }));
    });
}

describe.skipIf(external)('the operations the README lists', () => {
  let engine: EmbeddedEngine;
  beforeAll(async () => {
    engine = await startEngine({ port: 0 });
  });
  afterAll(async () => {
    await engine?.close();
  });

  const send = async (operation: string, streams: boolean) => {
    const response = await fetch(engine.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `${streams ? 'DynamoDBStreams_20120810' : 'DynamoDB_20120810'}.${operation}`,
        authorization: 'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    return { status: response.status, type: String(((await response.json()) as { __type?: string }).__type ?? '') };
  };

  const rows = operationsTable();
  it('lists the whole API: 24 served, 37 not implemented', () => {
    expect(rows.filter((row) => row.served)).toHaveLength(24);
    expect(rows.filter((row) => !row.served)).toHaveLength(37);
  });

  it.each(rows.filter((row) => row.served))('serves $operation', async ({ operation, streams }) => {
    const { type } = await send(operation, streams);
    expect(type).not.toMatch(/UnknownOperationException/);
  });

  it.each(rows.filter((row) => !row.served))('refuses $operation as an unknown operation', async ({ operation, streams }) => {
    expect(await send(operation, streams)).toEqual({ status: 400, type: 'com.amazon.coral.service#UnknownOperationException' });
  });
});
