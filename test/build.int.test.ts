import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleNodeEntry } from '../src/ops/bundle';

/**
 * `npm run build` (src/entry/cli/build.ts → src/ops/bundle.ts): the compiled server runs with plain
 * `node`, no TypeScript loader: it starts the embedded engine it bundles, loads the demo data,
 * answers a customer's screen with the token it printed, and exits 0 on SIGTERM.
 */
// Inside the checkout (git-ignored .scratch/), so the bundle's npm imports resolve from its node_modules, as dist/ does.
const scratch = fileURLToPath(new URL('../.scratch/', import.meta.url));
mkdirSync(scratch, { recursive: true });
const out = mkdtempSync(join(scratch, 'build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the compiled server', () => {
  it('serves a customer screen from plain node and stops on SIGTERM', async () => {
    const bundle = await bundleNodeEntry(fileURLToPath(new URL('../src/entry/cli/start.ts', import.meta.url)), join(out, 'start.mjs'));
    const child = spawn(process.execPath, [bundle], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        DYNAMODB_ENDPOINT: '',
        DATA_DIR: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the compiled server did not start:\n${output}`)), 45_000);
        child.stdout.on('data', () => {
          const match = /GraphQL server ready at (\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        void exited.then((code) => reject(new Error(`the compiled server exited with ${code}:\n${output}`)));
      });
      const token = /customer [^(]+\((\w+)\): (\S+)/.exec(output);
      expect(token, output).not.toBeNull();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token![2]}` },
        body: JSON.stringify({ query: '{ me { id } }' }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual({ me: { id: token![1] } });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);
});
