/**
 * The import direction of src/, written per folder (`npm run lint`, dependency-cruiser): each room
 * lists the rooms it may import, and nothing else in src. The layers, top down:
 *
 *   entry      src/entry: the Lambda handlers and src/entry/cli (npm start, engine, relay, ...)
 *   boot       configuration (the one reader of the environment), the DynamoDB client, the logger
 *   http       the HTTP server, Apollo, its plugins, the compiled executor
 *   live       graphql-ws subscriptions, paid before they read
 *   admission  what decides before anything executes: documents, sign-in, CORS, cost, limits, quotas
 *   errors     what a client sees of an error, on every transport
 *   schema     the SDL and who may use each field; assembles the resolvers
 *   resolvers  thin; never DynamoDB
 *   request    one operation's context (principal, metered table, loaders) and its estimate
 *   loaders    per-request batching
 *   hub        the in-process event hub subscriptions listen on
 *   model      entities, keys, access patterns, the error registry; no GraphQL
 *   dynamo     the SDK client, the metered Table (the one I/O seam), AWS errors recognised
 *
 * Beside them: auth (tokens into principals: imports nothing of src), relay (the outbox relay: model
 * and dynamo only, so Lambda bundles it without the GraphQL side), ops (seed, doctor, migrations: over
 * model and dynamo; the bundles: the schema's validated SDL), dev (the explorer). Type-only imports count: a type cycle is still a cycle.
 *
 * The workspace packages (`npm run lint` cruises src and packages):
 *   packages/engine  @single-table/engine, the embedded DynamoDB: imports nothing of the product or
 *                    the benchmark; src reaches it by its name only (`@single-table/engine`, its
 *                    `exports`), never by a path, and only entry, boot and ops do
 *   packages/bench   @single-table/bench, the benchmark: reaches the product through its public entry
 *                    only (`single-table-graphql`, src/index.ts), the engine by name; nothing imports it
 * src/index.ts, the product's public entry, is the one file at the root of src and imported by nothing in src.
 */
const ROOMS = {
  entry: ['*'],
  boot: ['admission', 'auth', 'dynamo', 'errors', 'http', 'hub', 'model', 'relay', 'request'],
  http: ['admission', 'auth', 'dev', 'dynamo', 'errors', 'hub', 'live', 'loaders', 'model', 'request', 'schema'],
  live: ['admission', 'auth', 'dynamo', 'errors', 'hub', 'loaders', 'model', 'request'],
  admission: ['auth', 'dynamo', 'errors', 'model', 'request'],
  errors: ['dynamo', 'model'],
  schema: ['auth', 'hub', 'model', 'request', 'resolvers'],
  resolvers: ['auth', 'hub', 'loaders', 'model', 'request'],
  request: ['auth', 'dynamo', 'loaders', 'model'],
  loaders: ['dynamo', 'model'],
  hub: ['model'],
  model: ['dynamo'],
  dynamo: [],
  auth: [],
  relay: ['dynamo', 'model'],
  ops: ['boot', 'dynamo', 'model', 'schema'],
  dev: ['auth', 'dynamo', 'model', 'request'],
};

/** The rooms that may use the embedded engine (@single-table/engine): they start it. */
const ENGINE_USERS = ['entry', 'boot', 'ops'];

const roomRules = Object.entries(ROOMS)
  .filter(([, allowed]) => !allowed.includes('*'))
  .map(([room, allowed]) => ({
    name: `${room}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
    severity: 'error',
    comment: `src/${room} imports only ${allowed.length ? allowed.map((r) => `src/${r}`).join(', ') : 'itself'} (see the layers above).`,
    from: { path: `^src/${room}/` },
    to: { path: '^src/', pathNot: `^src/(${[room, ...allowed].join('|')})/` },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle in src or in the packages (type-only imports included).',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
    {
      name: 'rooms-only',
      severity: 'error',
      comment:
        'Every source file lives in a room (a folder of src/ named in ROOMS): no loose files at the root but src/index.ts, the public entry.',
      from: { path: '^src/[^/]+$', pathNot: '^src/index[.]ts$' },
      to: {},
    },
    {
      name: 'public-entry-from-outside-only',
      severity: 'error',
      comment: 'src/index.ts is what programs outside the product use (single-table-graphql); nothing in src imports it.',
      from: { path: '^src/' },
      to: { path: '^src/index[.]ts$' },
    },
    {
      name: 'engine-by-name-only',
      severity: 'error',
      comment: 'src imports the engine by its package name (@single-table/engine and its exports), never by a path into packages/engine.',
      from: { path: '^src/' },
      to: { path: '^packages/engine/', dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'engine-users',
      severity: 'error',
      comment: `Only ${ENGINE_USERS.map((r) => `src/${r}`).join(', ')} use the embedded engine (they start it); the rest of src never does.`,
      from: { path: '^src/', pathNot: `^src/(${ENGINE_USERS.join('|')})/` },
      to: { path: '^packages/engine/' },
    },
    {
      name: 'engine-standalone',
      severity: 'error',
      comment: 'The engine (packages/engine) imports nothing of the product, its tests or the benchmark.',
      from: { path: '^packages/engine/' },
      to: { path: '^(src|test|packages/bench)/' },
    },
    {
      name: 'bench-through-public-entry',
      severity: 'error',
      comment: 'The benchmark reaches the product through its public entry only (single-table-graphql: src/index.ts).',
      from: { path: '^packages/bench/' },
      to: { path: '^src/', pathNot: '^src/index[.]ts$' },
    },
    {
      name: 'bench-product-by-name',
      severity: 'error',
      comment: 'The benchmark imports the product by its name (single-table-graphql), never by a relative path.',
      from: { path: '^packages/bench/' },
      to: { path: '^src/', dependencyTypes: ['local'] },
    },
    {
      name: 'bench-engine-by-name',
      severity: 'error',
      comment: 'The benchmark imports the engine by its package name (@single-table/engine and its exports), never by a path.',
      from: { path: '^packages/bench/' },
      // From the benchmark a name resolves as 'undetermined' (its own package.json), a path as 'local'.
      to: { path: '^packages/engine/', dependencyTypes: ['local'] },
    },
    ...roomRules,
    {
      name: 'model-not-graphql',
      severity: 'error',
      comment: 'The model knows nothing of GraphQL, Apollo or DataLoader.',
      from: { path: '^src/model/' },
      to: { path: '(^|/)node_modules/(graphql|@graphql-tools/[^/]+|@apollo/[^/]+|dataloader)/' },
    },
    {
      name: 'no-import-of-entry-points',
      severity: 'error',
      comment: 'Entry points (src/entry) are imported by nothing but other entry points.',
      from: { path: '^src/', pathNot: '^src/entry/' },
      to: { path: '^src/entry/' },
    },
    {
      name: 'src-not-test',
      severity: 'error',
      comment: 'Product code never imports test code or the benchmark (no cycle through packages/bench).',
      from: { path: '^src/' },
      to: { path: '^(test|packages/bench|packages/engine/test)/|(^|/)node_modules/@single-table/bench/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^packages/bench/[.]build/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
