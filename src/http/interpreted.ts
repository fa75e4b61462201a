/**
 * Queries and mutations executed by graphql-js's own `execute`, behind the same executor interface
 * as src/http/execution.ts (graphql-jit). The Lambda handler runs this one: a container serves few
 * requests before it is recycled, so compiling each document does not pay there, and graphql-jit
 * with its dependencies (ajv, fast-json-stringify, fast-uri: about 480 KB of the bundle, 30 ms of a
 * cold start, `npm run bench:cold`) stays out of the bundle. The long-running server keeps jit.
 */
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { execute, printSchema, type GraphQLSchema } from 'graphql';

/** A `GatewayInterface` builder: how `createApollo` executes admitted operations over `schema`. */
export type Execution = (schema: GraphQLSchema) => GatewayInterface;

/**
 * What a gateway tells Apollo's schema listeners. Only schema reporting reads the printed SDL, and
 * it is off (src/http/apollo.ts): printed when read, not on each start (3 ms of a Lambda cold start).
 */
export function loadedSchema(schema: GraphQLSchema): { apiSchema: GraphQLSchema; readonly coreSupergraphSdl: string } {
  return {
    apiSchema: schema,
    get coreSupergraphSdl() {
      return printSchema(schema);
    },
  };
}

export const interpretedExecution: Execution = (schema) => ({
  onSchemaLoadOrUpdate(callback) {
    callback(loadedSchema(schema));
    return () => {};
  },
  async load() {
    return {
      executor: async ({ document, operationName, context, request }) =>
        execute({ schema, document, operationName, contextValue: context, variableValues: request.variables ?? {} }),
    };
  },
  async stop() {},
});
