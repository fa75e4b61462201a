/**
 * A Node entry of this checkout compiled into one ES module (`npm run build` for the long-running
 * server; the benchmark's servers under test, packages/bench/compile.ts): the product and the
 * workspace packages (`@single-table/*`) bundled by esbuild, every npm package left an import that
 * Node resolves from node_modules at run time. A deployed server so runs no TypeScript loader:
 * through tsx, every `require` a library makes while serving (Apollo's `createHash` requires
 * `crypto` on each request) goes through tsx's resolver hook.
 *
 * src/schema reads its `*.graphql` files from beside its module, so they are copied beside the bundle.
 * esbuild is a development dependency: this module loads it only when called.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_DIR = fileURLToPath(new URL('../schema/', import.meta.url));
/** Packages of this checkout: compiled in. */
const WORKSPACE = /^(single-table-graphql|@single-table\/)/;
/** esbuild's CommonJS shim for a bundled module that calls `require`. */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export async function bundleNodeEntry(entry: string, outfile: string): Promise<string> {
  const { build } = await import('esbuild');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    sourcemap: true,
    plugins: [
      {
        name: 'npm-external',
        setup(plugin) {
          plugin.onResolve({ filter: /^[^./]/ }, (args) => (WORKSPACE.test(args.path) ? undefined : { path: args.path, external: true }));
        },
      },
    ],
    banner: { js: REQUIRE_SHIM },
    logLevel: 'warning',
  });
  for (const file of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.graphql'))) {
    copyFileSync(join(SCHEMA_DIR, file), join(dirname(outfile), file));
  }
  return outfile;
}
