import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql module for everyone, as under Node: Vite would pick graphql's ESM build for our
  // imports while @graphql-tools and Apollo load the CommonJS one ("another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    // Integration suites each start their own engine and server on free loopback ports.
    pool: 'forks',
    // Two files at a time on a 2-core machine (vitest's default is cores - 1: one): a suite spends
    // much of its time waiting on its engine's simulated index lag, timers and sockets.
    maxWorkers: 2,
    // A worker keeps its modules between files (the SDK, Apollo and graphql-js are loaded once per
    // worker, not once per file): every suite starts and stops its own stack, and the one module
    // setting a test changes (the model's shard count, test/config.test.ts) is reset after it.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Two projects, one run (`npm test`): the engine's conformance suite (packages/engine, `npm run
    // test:engine` alone) and the product's. Both inherit the settings above. The workspace
    // packages are symlinks in node_modules that Vite resolves to their real paths, so their
    // TypeScript sources are transformed like ours.
    projects: [
      { extends: true, test: { name: 'engine', include: ['packages/engine/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'product', include: ['test/**/*.test.ts'] } },
    ],
  },
});
