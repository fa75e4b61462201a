import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootstrap, serverSettings } from '../src/boot/bootstrap';
import { readConfig } from '../src/boot/config';
import { Meter } from '../src/dynamo/meter';
import { Table } from '../src/dynamo/table';
import { checkShardCount, DEFAULT_MODEL_SETTINGS, DEFAULT_WRITE_SHARDS, shardOf } from '../src/model';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('configuration', () => {
  it('is read from the environment by src/boot/config.ts alone', () => {
    const readers = sources(join(root, 'src'))
      // A read is `process.env` in code; in a comment or a string (a bundler's `define` key) it is not.
      .filter((file) => /(?<!['"`])process\.env\b/.test(readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '')))
      .map((file) => relative(root, file));
    expect(readers).toEqual(['src/boot/config.ts']);
  });

  it('reads the model, engine, logger and client settings', () => {
    const defaults = readConfig({});
    expect(defaults).toMatchObject({
      model: { statusShards: 4 },
      engineDebug: false,
      logLevel: 'info',
      awsCredentialsInEnvironment: false,
      shutdownGraceMillis: 5_000,
    });
    expect(readConfig({ VITEST: 'true' }).logLevel).toBe('silent');
    expect(
      readConfig({ STATUS_SHARDS: '8', ENGINE_DEBUG: '1', LOG_LEVEL: 'debug', AWS_PROFILE: 'dev', SHUTDOWN_GRACE_MS: '250' }),
    ).toMatchObject({
      model: { statusShards: 8 },
      engineDebug: true,
      logLevel: 'debug',
      awsCredentialsInEnvironment: true,
      shutdownGraceMillis: 250,
    });
    expect(() => readConfig({ STATUS_SHARDS: '0' })).toThrow(/STATUS_SHARDS must be an integer 1\.\.64, got 0/);
    expect(() => readConfig({ STATUS_SHARDS: 'four' })).toThrow(/STATUS_SHARDS/);
    expect(() => readConfig({ SHUTDOWN_GRACE_MS: '-1' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it('gives the table its shard count as a setting', async () => {
    expect(DEFAULT_MODEL_SETTINGS.statusShards).toBe(4);
    expect(DEFAULT_WRITE_SHARDS).toBe(4);
    // The bootstrap builds the table with the configured count; its derived handles keep it.
    const runtime = await bootstrap(readConfig({ STATUS_SHARDS: '1' }));
    try {
      expect(runtime.table.writeShards).toBe(1);
      expect(runtime.table.withMeter(new Meter()).writeShards).toBe(1);
      expect(runtime.table.withGuard(undefined).writeShards).toBe(1);
      expect(new Table('app', runtime.doc).writeShards).toBe(DEFAULT_WRITE_SHARDS);
      expect(() => new Table('app', runtime.doc, { writeShards: 65 })).toThrow(/1\.\.64/);
      expect(() => new Table('app', runtime.doc, { writeShards: 0 })).toThrow(/1\.\.64/);
    } finally {
      await runtime.close();
    }
    expect(shardOf('01JD0000000000000000000000', 1)).toBe(0);
    expect(() => checkShardCount(65)).toThrow(/STATUS_SHARDS must be an integer 1\.\.64/);
  });

  it('gives the HTTP server and Lambda the same Apollo settings', () => {
    const config = readConfig({ INTROSPECTION_ENABLED: '1', EXPLAIN_ENABLED: '1', QUOTA_READS_PER_MINUTE: '7' });
    expect(serverSettings(config)).toMatchObject({
      introspectionInProduction: true,
      explainInProduction: true,
      quotas: { readsPerMinute: 7 },
      stopGracePeriodMillis: 5_000,
    });
  });
});
