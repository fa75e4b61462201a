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
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { BuildOptions, Plugin } from 'esbuild';
import { VALIDATED_SDL_FILE, validatedSdl } from '../schema';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_DIR = fileURLToPath(new URL('../schema/', import.meta.url));
/** Packages of this checkout: compiled in. */
const WORKSPACE = /^(single-table-graphql|@single-table\/)/;
/** esbuild's CommonJS shim for a bundled module that calls `require`. */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** `SCHEMA_DIR`'s SDL files beside `outfile`, where src/schema reads them, with the SDL parsed and validated (`validatedSdl`). */
function copySchemaBeside(outfile: string): void {
  for (const file of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.graphql'))) {
    copyFileSync(join(SCHEMA_DIR, file), join(dirname(outfile), file));
  }
  writeFileSync(join(dirname(outfile), VALIDATED_SDL_FILE), validatedSdl());
}

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
  copySchemaBeside(outfile);
  return outfile;
}

/**
 * Packages that CommonJS modules in the Lambda bundle `require` while ES modules import them:
 * @as-integrations/aws-lambda requires @apollo/server, whose CommonJS build requires
 * @graphql-tools and lru-cache, so esbuild would bundle (and a cold start would compile and run)
 * both builds of each, about 200 KB. Resolved as an import, a `require` gets the one ES build.
 */
const ONE_BUILD = /^(@apollo\/server|@graphql-tools\/[^/]+|lru-cache)(\/|$)/;

const oneBuildPerPackage: Plugin = {
  name: 'one-build-per-package',
  setup(build) {
    build.onResolve({ filter: ONE_BUILD }, async (args) => {
      if (args.kind !== 'require-call') return undefined;
      const esm = await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
      return esm.errors.length > 0 ? undefined : { path: esm.path };
    });
  },
};

/**
 * graphql-js as ES modules only. The package entry takes its `.mjs` build (`mainFields`), but a deep
 * path (@escape.tech/graphql-armor imports `graphql/language/parser`, graphql-jit requires
 * `graphql/execution/execute.js`) would take the CommonJS file beside it: graphql-js twice in the
 * bundle, with two GraphQLError classes that `instanceof` tells apart. Each deep path goes to its `.mjs`.
 */
const graphqlAsEsm: Plugin = {
  name: 'graphql-as-esm',
  setup(build) {
    build.onResolve({ filter: /^graphql\/.+/ }, async (args) => {
      if (args.pluginData === 'graphql-as-esm') return undefined;
      const base = args.path.replace(/\.m?js$/, '');
      for (const candidate of [`${base}.mjs`, `${base}/index.mjs`]) {
        const found = await build.resolve(candidate, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'graphql-as-esm' });
        if (found.errors.length === 0) return { path: found.path };
      }
      return undefined;
    });
  },
};

/**
 * Apollo hashes every document (and the schema) with @apollo/utils.createhash, which takes
 * node:crypto through `module.require`, a function esbuild's CommonJS wrapper lacks: bundled, it
 * falls back to sha.js, a hash in JavaScript. The bundle takes node:crypto's, as the runtime has it.
 */
const nodeCryptoHash: Plugin = {
  name: 'node-crypto-hash',
  setup(build) {
    build.onResolve({ filter: /^@apollo\/utils\.createhash$/ }, () => ({ path: 'createhash', namespace: 'node-crypto-hash' }));
    build.onLoad({ filter: /.*/, namespace: 'node-crypto-hash' }, () => ({ contents: "export { createHash } from 'node:crypto';" }));
  },
};

/**
 * Apollo probes for graphql 17's incremental delivery with `await import('graphql')`, whose
 * namespace object keeps all of graphql-js in the bundle (no tree shaking) and makes every graphql
 * module a lazily initialised wrapper. This checkout pins graphql 16, for which the probe always
 * answers "not 17" (it compares `version` with '17.0.0-alpha.9'): it gets an empty namespace, with
 * the same answer, and graphql-js is bundled as the static imports need it (35 KB less and about
 * 5 ms of a cold start: docs/benchmarks.md, "Lambda"). The build fails if Apollo's probe changes.
 */
const GRAPHQL_17_PROBE = /await import\((['"])graphql\1\)/;

const noGraphql17Probe: Plugin = {
  name: 'no-graphql-17-probe',
  setup(build) {
    build.onLoad({ filter: /@apollo\/server\/dist\/esm\/incrementalDeliveryPolyfill\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!GRAPHQL_17_PROBE.test(text)) throw new Error(`${args.path}: Apollo's graphql 17 probe changed; see noGraphql17Probe`);
      return { contents: text.replace(GRAPHQL_17_PROBE, 'await Promise.resolve({})'), loader: 'js' };
    });
  },
};

/**
 * Apollo Server's usage-reporting, inline-trace and schema-reporting plugins (and the protobuf
 * encoder they pull in, about 300 KB): src/http/apollo.ts installs their Disabled plugins, so Apollo
 * never imports them, and its dynamic imports of them stay unresolved.
 */
const APOLLO_UNUSED = ['./plugin/usageReporting/index.js', './plugin/inlineTrace/index.js', './plugin/schemaReporting/index.js'];

/**
 * The esbuild options of a Lambda bundle (`lambdaBundle`; the benchmark bundles its raw SDK
 * handler and its experiments with them): one minified ES module with everything it imports, the
 * AWS SDK included, so the deployed code runs the SDK version the lock file pins, not the runtime's.
 */
export const LAMBDA_BUILD: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // A package's ES build before its CommonJS one (esbuild's default on node is the reverse): the AWS SDK's
  // and graphql-js's ES modules are tree-shaken to what is imported, their CommonJS files are bundled and
  // run whole (with graphqlAsEsm: 1.34 → 1.02 MB, a cold start 189 → 131 ms, `npm run bench:cold`).
  mainFields: ['module', 'main'],
  external: APOLLO_UNUSED,
  plugins: [oneBuildPerPackage, graphqlAsEsm, nodeCryptoHash, noGraphql17Probe],
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: REQUIRE_SHIM },
};

/**
 * A Lambda function's bundle (the Makefile's targets, which `sam build` runs): `entry` and all it
 * imports in `outfile`, a source map beside it (NODE_OPTIONS=--enable-source-maps uses it), and the
 * schema's SDL files beside it when the entry serves GraphQL (imports src/schema).
 */
export async function lambdaBundle(entry: string, outfile: string): Promise<string> {
  const { build } = await import('esbuild');
  const { metafile } = await build({ ...LAMBDA_BUILD, entryPoints: [entry], outfile, sourcemap: true, metafile: true });
  if (Object.keys(metafile.inputs).some((input) => input.endsWith('src/schema/index.ts'))) copySchemaBeside(outfile);
  return outfile;
}
