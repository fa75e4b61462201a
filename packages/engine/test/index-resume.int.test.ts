/**
 * With `path`, an engine killed during the status delay leaves an index CREATING or DELETING (or
 * a table CREATING) on disk, where no timer would finish it. A child process holds the update (a
 * 60 s delay) and is killed with SIGKILL; an engine opened on the same directory then finishes it,
 * as the request would have (index-updates.ts, `resumeIndexUpdates`).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine';
import { byStatus, createIndex, type Row } from './index-support';
import { N, S, key, testTableDefinition, uniqueTableName } from './support';

describe('an index update interrupted by a kill, resumed by the next engine on the same path', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-resume-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function settled(engine: Engine, table: string): Promise<Record<string, any>> {
    for (const deadline = Date.now() + 5_000; ;) {
      const { body } = (await engine.handle('DescribeTable', { TableName: table })) as { body: Record<string, any> };
      const indexes = (body.Table.GlobalSecondaryIndexes ?? []) as { IndexStatus: string }[];
      if (body.Table.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return body.Table;
      if (Date.now() > deadline) throw new Error(`still not ACTIVE after 5 s: ${JSON.stringify(body.Table)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * Opens an engine on `dir` in a child process with a 60 s status delay, sends `operation`, and is
   * killed once it answered; resolves to `shown` (a JavaScript expression over `answer`), as JSON.
   */
  async function killedDuring(
    operation: string,
    body: unknown,
    shown = 'answer.body.TableDescription.GlobalSecondaryIndexes.map((index) => index.IndexStatus)',
  ): Promise<string> {
    const script = `
      import { Engine } from ${JSON.stringify(join(import.meta.dirname, '../src/engine.ts'))};
      const engine = Engine.open({ path: ${JSON.stringify(dir)}, tableStatusDelayMs: 60_000 });
      const answer = await engine.handle(${JSON.stringify(operation)}, ${JSON.stringify(body)});
      process.stdout.write(JSON.stringify(${shown}) + '\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const answered = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`the child exited ${code} before answering`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    return answered;
  }

  it('a Create left CREATING is backfilled and becomes ACTIVE; a Delete left DELETING removes the index and its entries', async () => {
    const table = uniqueTableName('gsiresume');
    let engine = Engine.open({ path: dir });
    await engine.handle('CreateTable', testTableDefinition(table));
    await settled(engine, table);
    await engine.handle('PutItem', { TableName: table, Item: { ...key('r#1', 'x'), STATUS: S('open'), AT: N(1) } });
    await engine.close();

    expect(await killedDuring('UpdateTable', createIndex(table, 'ByStatus', { ProjectionType: 'ALL' }))).toBe('["ACTIVE","CREATING"]');
    engine = Engine.open({ path: dir });
    let active = await settled(engine, table);
    expect(active.GlobalSecondaryIndexes.map((index: { IndexName: string }) => index.IndexName).sort()).toEqual(['ByStatus', 'GSI1']);
    const query = byStatus(table, 'ByStatus', 'open').input;
    const read = (await engine.handle('Query', query)) as { status: number; body: Record<string, any> };
    expect(read.body.Items.map((item: Row) => item.PK?.S)).toEqual(['r#1']);
    await engine.close();

    const deleting = { TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ByStatus' } }] };
    expect(await killedDuring('UpdateTable', deleting)).toBe('["ACTIVE","DELETING"]');
    engine = Engine.open({ path: dir });
    active = await settled(engine, table);
    expect(active.GlobalSecondaryIndexes.map((index: { IndexName: string }) => index.IndexName)).toEqual(['GSI1']);
    const gone = (await engine.handle('Query', query)) as { status: number; body: Record<string, any> };
    expect(gone.body.message).toBe('The table does not have the specified index: ByStatus');
    await engine.close();
  });

  it('a table left CREATING by a kill becomes ACTIVE', async () => {
    const table = uniqueTableName('tableresume');
    const answered = await killedDuring('CreateTable', testTableDefinition(table), 'answer.body.TableDescription.TableStatus');
    expect(answered).toBe('"CREATING"');
    const engine = Engine.open({ path: dir });
    expect((await settled(engine, table)).TableStatus).toBe('ACTIVE');
    await engine.close();
  });
});
