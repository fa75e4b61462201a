/**
 * How queries and mutations execute: compiled by graphql-jit, once per parsed document and
 * operation, instead of interpreted by graphql-js for every request.
 *
 * Why: graphql-js re-derives per request and per field what a document already fixes (argument
 * maps, resolve info, completion by type): on the customer screen that bookkeeping was 0.085 ms of
 * server CPU per operation (README, "Benchmark": where it went), plus the garbage of an arguments
 * object and a resolve info for every field of every request. A
 * compiled query is a function of (root, context, variables) generated from the schema and the
 * document; the same resolvers run, in the same order, with the same `info.fieldNodes` (the AST
 * nodes of the document, so the look-ahead's memo holds).
 *
 * Plugged in through Apollo Server's executor interface (`gateway`: `load` hands Apollo the
 * executor, `onSchemaLoadOrUpdate` the schema); Apollo still parses, validates, admits (limits,
 * quotas, trusted documents), formats errors and runs every plugin hook around execution.
 *
 * Contract kept with graphql-js (the whole suite runs on it):
 * - errors: graphql-jit's own error objects carry no `extensions` (Apollo reads them) and wrap a
 *   resolver's error as `originalError`; each is rebuilt as a graphql-js `GraphQLError` with its
 *   message, path, locations and original error, as graphql-js's `locatedError` builds it (a thrown
 *   `GraphQLError`'s extensions carried over; a plain Error under its own, a null for a non-null
 *   field), so `formatError` sees what it saw before (test/execution.test.ts compares the two);
 * - variables: already coerced and refused with BAD_USER_INPUT before execution (src/admission/pipeline.ts),
 *   so graphql-jit's own coercion messages never reach a client;
 * - subscriptions never come here (HTTP refuses them; src/live/websocket.ts runs them with graphql-js).
 *
 * Cost: a document is compiled once, on its first execution (a fraction of a millisecond for the
 * benchmark's documents), and its compiled queries live as long as Apollo keeps the parsed document
 * (a WeakMap on it). Only admitted operations reach execution: an anonymous caller's only if they
 * select no data, and graphql-armor bounds every document's size.
 */
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema, type SourceLocation } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { loadedSchema } from './interpreted';

/** Apollo's executor interface over `schema`, executing each operation by its compiled query (the HTTP server's; Lambda's: src/http/interpreted.ts). */
export function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();
  const compiledFor = (document: DocumentNode, operationName: string | undefined): CompiledQuery | ExecutionResult => {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map()));
    const known = byName.get(operationName ?? '');
    if (known) return known;
    const made = compileQuery(schema, document, operationName);
    if (isCompiledQuery(made)) byName.set(operationName ?? '', made);
    return made;
  };
  return {
    onSchemaLoadOrUpdate(callback) {
      callback(loadedSchema(schema));
      return () => {};
    },
    async load() {
      return {
        executor: async ({ document, operationName, context, request }) => {
          const query = compiledFor(document, operationName ?? undefined);
          const result = isCompiledQuery(query) ? await query.query(undefined, context, request.variables ?? {}) : query;
          return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
        },
      };
    },
    async stop() {},
  };
}

/** graphql-jit's error (no `extensions`) as the `GraphQLError` graphql-js would have made of it. */
function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError && error.extensions !== undefined) return error;
  const jit = error as Error & { locations?: readonly SourceLocation[]; path?: ReadonlyArray<string | number>; originalError?: Error };
  // graphql-js wraps its own execution errors (a null for a non-null field) around a plain Error too.
  const rebuilt = new GraphQLError(jit.message, { path: jit.path, originalError: jit.originalError ?? new Error(jit.message) });
  if (jit.locations && jit.locations.length > 0) (rebuilt as { locations?: readonly SourceLocation[] }).locations = jit.locations;
  return rebuilt;
}
