import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleNodeEntry } from '../src/ops/bundle';
import { startServerProcess } from './support/processes';

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
    // Its own embedded engine (no endpoint); the test process's dev issuer (startServerProcess).
    const server = await startServerProcess('', { DATA_DIR: '' }, [bundle]);
    try {
      const output = server.output();
      const token = /customer [^(]+\((\w+)\): (\S+)/.exec(output);
      expect(token, output).not.toBeNull();
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token![2]}` },
        body: JSON.stringify({ query: '{ me { id } }' }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual({ me: { id: token![1] } });
      expect(await server.stop('SIGTERM')).toBe(0);
    } finally {
      await server.stop('SIGKILL');
    }
  }, 90_000);
});
