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
 * Beside them: auth (tokens into principals: imports nothing of src), engine (the embedded DynamoDB:
 * imports nothing of src), relay (the outbox relay: model and dynamo only, so Lambda bundles it
 * without the GraphQL side), ops (seed, doctor, migrations: over model and dynamo), dev (the
 * explorer). Type-only imports count: a type cycle is still a cycle.
 */
const ROOMS = {
  entry: ['*'],
  boot: ['admission', 'auth', 'dynamo', 'engine', 'errors', 'http', 'hub', 'model', 'relay', 'request'],
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
  engine: [],
  relay: ['dynamo', 'model'],
  ops: ['boot', 'dynamo', 'engine', 'model'],
  dev: ['auth', 'dynamo', 'model', 'request'],
};

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
      comment: 'No import cycle in src (type-only imports included).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'rooms-only',
      severity: 'error',
      comment: 'Every source file lives in a room (a folder of src/ named in ROOMS): no loose files at the root.',
      from: { path: '^src/[^/]+$' },
      to: {},
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
      comment: 'Product code never imports test code.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
