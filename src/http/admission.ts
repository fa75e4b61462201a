/**
 * The admission pipeline (src/admission/pipeline.ts) as one Apollo plugin, for HTTP and Lambda.
 *
 * Apollo runs plugins' `requestDidStart` before it reads `extensions.persistedQuery`, so the
 * document step runs there: it puts a manifest's text in `request.query` and drops the
 * extension. A refusal thrown there would be answered 500, so a request refused at that step runs
 * as `{ __typename }` until its operation is resolved, and the refusal is thrown then: before
 * anything executes, through every plugin (the log line, `Cache-Control: no-store`). The other
 * steps run once Apollo has parsed and validated the document (`didResolveOperation`); their
 * refusal is thrown there, and `contextValue.cost` carries an admitted operation's estimate.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import { Code } from '../errors/codes';
import type { Admission } from '../admission/pipeline';
import { withoutPersistedQuery } from '../admission/documents';
import type { Context } from '../request/context';

export function admissionPlugin(admission: Admission): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ request }) {
      const early = admission.document(request);
      if (early) {
        request.query = '{ __typename }';
        request.operationName = undefined;
        request.variables = {};
        request.extensions = withoutPersistedQuery(request.extensions);
      }
      return {
        async didResolveOperation({ request, document, schema, operation, contextValue }) {
          if (early) throw first(early.refused);
          // No operation selected (an unknown operationName, several operations and none named) is
          // refused here too: graphql-jit's executor would otherwise run the document's first one.
          const admitted = admission.operation({
            schema,
            document,
            operation,
            operationName: request.operationName,
            variables: request.variables,
            principal: contextValue.principal,
            clientAddress: contextValue.clientAddress,
          });
          if (admitted.estimate) contextValue.cost = admitted.estimate;
          if ('refused' in admitted) throw first(admitted.refused);
        },
        // APQ's unknown hash is the client's to fix (it resends the text): 400, not Apollo's 200.
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          if (response.body.singleResult.errors?.[0]?.extensions?.code === Code.PERSISTED_QUERY_NOT_FOUND) response.http.status = 400;
        },
      };
    },
  };
}

/** Apollo answers one thrown error; HTTP's refusals are one error each (only WebSocket's validation gives several). */
function first(errors: readonly GraphQLError[]): GraphQLError {
  return errors[0]!;
}
