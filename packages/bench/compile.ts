/**
 * The servers under test run compiled, as `npm run build` ships the server (src/ops/bundle.ts):
 * child.ts and everything of this checkout it imports (the product, the engine, the baseline) in
 * one ES module, npm packages resolved from node_modules. The three designs pay the same compile
 * step, so their ratios compare servers, not TypeScript loaders.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNodeEntry } from 'single-table-graphql';

const here = dirname(fileURLToPath(import.meta.url));

let compiled: Promise<string> | undefined;

/** Compiles child.ts once per process (into the git-ignored packages/bench/.build); resolves to the bundle's path. */
export function compiledChild(): Promise<string> {
  return (compiled ??= bundleNodeEntry(join(here, 'child.ts'), join(here, '.build', 'child.mjs')));
}
