/**
 * The product's public entry (`single-table-graphql` by name; package.json `exports`), the one file
 * at the root of src/: what a program outside the product (the benchmark, packages/bench) may use.
 * Everything else of src/ is reached only from inside it. Nothing in src/ imports this file.
 *
 * - configuration and bootstrap: the environment read once, the DynamoDB client, the Table, the server
 * - the model (entities, codecs, access patterns, write guards, settings) and its sharded reads
 * - the I/O seam: the SDK client, the metered Table, the table definition, hedging, AWS errors recognised
 * - identity: the authenticator and the local development issuer
 * - GraphQL: the SDL, the compiled executor, the HTTP server
 * - events: the outbox relay and its publishers
 * - operations: the doctor, seeded randomness, the server build
 */
export { readConfig, readModelSettings, silenceSdkNodeVersionNotice, type Config } from './boot/config';
export { bootstrap, type BootstrapOptions, type Runtime, type StartEngine } from './boot/bootstrap';
export { streamsClientFor } from './boot/relay';

export * from './model';
export {
  firstWaveShare,
  newestAcrossShards,
  shardedReadBound,
  type ShardAnswer,
  type ShardQuery,
  type ShardRead,
  type ShardStart,
} from './model/shard-merge';

export { createDocumentClient, type ClientOptions } from './dynamo/client';
export { ensureTable, describeTable, tableDefinition, GSI1, TTL_ATTRIBUTE, type EnsureResult } from './dynamo/definition';
export { Table, type Item } from './dynamo/table';
export { DEFAULT_HEDGE_SETTINGS, Hedger, type HedgeSettings, type HedgeStats } from './dynamo/hedge';
export { isResourceInUse, isResourceNotFound } from './dynamo/errors';

export { authenticatorFor, ANONYMOUS, type AuthConfig, type Authenticate, type Principal } from './auth';
export { devClaims, openDevIssuer, DEV_AUDIENCE, DEV_ISSUER, type DevIssuer } from './auth/dev-issuer';

export { typeDefs, buildSchema } from './schema';
export { compiledExecution } from './http/execution';
export { startServer, type RunningServer, type ServerOptions } from './http/server';
export { bundleNodeEntry, LAMBDA_BUILD } from './ops/bundle';

export { Relay, type RelayOptions } from './relay/relay';
export { hubPublisher, logPublisher, type Publisher } from './relay/publishers';

export { doctor, type DoctorOptions, type DoctorReport, type DoctorTarget } from './ops/doctor';
export { seededRandom, type Random } from './ops/random';
