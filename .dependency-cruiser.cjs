/**
 * The import direction of src/, as a rule (`npm run lint`, dependency-cruiser). The layers, top down:
 *
 *   entry points   src/main.ts, src/lambda.ts, src/scripts/, src/cli/       (nothing imports them)
 *   app            src/server.ts, context, plugins, limits, cost, quotas, documents, cors, ...
 *   schema         src/schema     (the SDL and who may use each field; assembles the resolvers)
 *   resolvers      src/resolvers  (thin; no DynamoDB)
 *   loaders        src/loaders    (per-request batching and caching)
 *   model          src/model      (entities, keys, access patterns; no GraphQL)
 *   dynamo         src/dynamo     (the SDK client, the metered Table, the table definition)
 *
 * Beside them: src/auth (tokens and principals: imports nothing but src/config.ts), src/engine (the
 * embedded DynamoDB engine: imports nothing from the app; it is the server side of the wire),
 * src/tools and src/migrations (operational libraries over model and dynamo, never the GraphQL side).
 * Type-only imports count: a type cycle is still a cycle.
 */
const APP = '^src/(server|execution|websocket|live-operations|context|plugins|limits|cost|quotas|documents|cors|logger)[.]ts$';
const ENTRY = '^src/(scripts|cli)/|^src/(main|lambda|lambda-relay)[.]ts$';

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
      name: 'resolvers-not-dynamo',
      severity: 'error',
      comment: 'Resolvers reach data through loaders and the model, never the Table or the engine.',
      from: { path: '^src/resolvers/' },
      to: { path: ['^src/(dynamo|engine|tools|migrations|schema)/', ENTRY] },
    },
    {
      name: 'model-not-graphql',
      severity: 'error',
      comment: 'The model knows nothing of GraphQL, Apollo or DataLoader.',
      from: { path: '^src/model/' },
      to: { path: '(^|/)node_modules/(graphql|@graphql-tools/[^/]+|@apollo/[^/]+|dataloader)/' },
    },
    {
      name: 'model-only-dynamo',
      severity: 'error',
      comment: 'The model imports only itself and src/dynamo (its settings are handed to it, never read from src/config.ts).',
      from: { path: '^src/model/' },
      to: { path: '^src/', pathNot: '^src/(model|dynamo)/' },
    },
    {
      name: 'hub-only-model',
      comment:
        'The event hub (src/events/hub.ts, stream.ts, live.ts) imports only itself and the model: the app, the schema, resolvers and the relay import it, never the other way round.',
      severity: 'error',
      from: { path: '^src/events/(hub|stream|live)[.]ts$' },
      to: { path: '^src/', pathNot: ['^src/events/(hub|stream|live)[.]ts$', '^src/model/'] },
    },
    {
      name: 'relay-not-graphql-side',
      severity: 'error',
      comment:
        'The outbox relay (src/events/ but the hub) reads the stream and the table and publishes through a Publisher: never the GraphQL side, the app, the embedded engine, nor the hub itself (Lambda bundles it without them).',
      from: { path: '^src/events/', pathNot: '^src/events/(hub|stream|live)[.]ts$' },
      to: { path: ['^src/(resolvers|schema|loaders|engine)/', '^src/events/(hub|stream|live)[.]ts$', APP, ENTRY] },
    },
    {
      name: 'model-not-events',
      severity: 'error',
      comment: 'The model knows nothing of the hub or the relay: they consume its events.',
      from: { path: '^src/model/' },
      to: { path: '^src/events/' },
    },
    {
      name: 'loaders-not-up',
      severity: 'error',
      comment: 'Loaders serve resolvers; they never import them, the schema or the app.',
      from: { path: '^src/loaders/' },
      to: { path: ['^src/(resolvers|schema|auth|tools|migrations|engine)/', APP, ENTRY] },
    },
    {
      name: 'dynamo-is-the-bottom',
      severity: 'error',
      comment: 'src/dynamo imports nothing else from src (no model, loaders, resolvers, app or engine).',
      from: { path: '^src/dynamo/' },
      to: { path: '^src/', pathNot: '^src/dynamo/' },
    },
    {
      name: 'engine-standalone',
      severity: 'error',
      comment: 'The embedded engine is a DynamoDB, not part of the app: it imports nothing from src outside src/engine.',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/engine/' },
    },
    {
      name: 'auth-standalone',
      severity: 'error',
      comment: 'Auth turns tokens into principals; it imports only src/config.ts (its settings), never the data side or the app.',
      from: { path: '^src/auth/' },
      to: { path: '^src/', pathNot: ['^src/auth/', '^src/config[.]ts$'] },
    },
    {
      name: 'tools-not-graphql-side',
      severity: 'error',
      comment: 'Tools and migrations work on the model and the table, never through the GraphQL side.',
      from: { path: '^src/(tools|migrations)/' },
      to: { path: ['^src/(resolvers|schema|loaders)/', APP] },
    },
    {
      name: 'no-import-of-entry-points',
      severity: 'error',
      comment: 'Entry points (src/main.ts, src/lambda.ts, src/scripts/, src/cli/) are imported by nothing but other entry points.',
      from: { path: '^src/', pathNot: ENTRY },
      to: { path: ENTRY },
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
