/**
 * The servers under test run compiled, as a deployed server runs: child.ts and everything of this
 * checkout it imports (the product, the engine, the baseline) bundled by esbuild into one ES module,
 * with the npm packages left as imports that Node resolves from node_modules. Run through tsx
 * instead, every `require` a library makes while serving (Apollo's `createHash` requires `crypto` on
 * each request) goes through tsx's resolver hook, which no deployment has; the three designs pay
 * the same compile step, so their ratios compare servers, not loaders.
 *
 * src/schema reads its `*.graphql` files from beside its module, so they are copied beside the bundle.
 */
import { build, type Plugin } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
/** Where the compiled child goes (git-ignored). */
export const BUILD_DIR = join(here, '.build');

/** Packages of this checkout (workspaces) are compiled in; every other bare import stays an import. */
const WORKSPACE = /^(single-table-graphql|@single-table\/)/;
const npmExternal: Plugin = {
  name: 'npm-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (WORKSPACE.test(args.path) ? undefined : { path: args.path, external: true }));
  },
};

let compiled: Promise<string> | undefined;

/** Compiles child.ts once per process; resolves to the bundle's path. */
export function compiledChild(): Promise<string> {
  return (compiled ??= compile());
}

async function compile(): Promise<string> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const outfile = join(BUILD_DIR, 'child.mjs');
  await build({
    entryPoints: [join(here, 'child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    plugins: [npmExternal],
    // esbuild's CJS shim: a bundled module that calls require() (createRequire in the engine does not need it).
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const schema = join(root, 'src', 'schema');
  for (const file of readdirSync(schema).filter((name) => name.endsWith('.graphql')))
    copyFileSync(join(schema, file), join(BUILD_DIR, file));
  return outfile;
}
