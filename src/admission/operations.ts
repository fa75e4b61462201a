/**
 * Admission plugins that decide from the operation alone, before anything executes: anonymous
 * callers get no data, and subscriptions are served over WebSocket only.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { getOperationAST, GraphQLError, Kind, parse, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { unauthenticated, type Context } from '../request/context';
import { LIMITS } from './limits';

/**
 * Anonymous callers get no data: an operation of theirs that selects any root field but the
 * introspection ones (`__schema`, `__type`, `__typename`) is refused before it executes, with
 * HTTP 401 and `UNAUTHENTICATED`. Introspection alone passes (it is off in production anyway).
 */
export function requireSignIn(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, document }) {
          if (contextValue.principal.kind !== 'anonymous' || !operation) return;
          const fragments = new Map(
            document.definitions
              .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
              .map((fragment) => [fragment.name.value, fragment]),
          );
          if (selectsData(operation.selectionSet, fragments, new Set())) {
            throw unauthenticated('sign in first: send Authorization: Bearer <token>');
          }
        },
      };
    },
  };
}

function selectsData(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return !selection.name.value.startsWith('__');
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsData(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || seen.has(fragment.name.value)) return false;
    seen.add(fragment.name.value);
    return selectsData(fragment.selectionSet, fragments, seen);
  });
}

/**
 * Subscriptions travel over WebSocket only (src/live/websocket.ts); over HTTP (here and on Lambda) a
 * subscription operation is refused before anything executes: HTTP 400, `GRAPHQL_VALIDATION_FAILED`,
 * with a message that says where to subscribe instead. As in src/admission/documents.ts, the request runs
 * as `{ __typename }` until its operation is resolved, then the refusal is thrown (through every
 * plugin: the log line, no-store). Placed after `persistedDocuments`, which resolves a hash to its text.
 */
export function subscriptionsOverWebSocket(where: 'server' | 'lambda'): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ request }) {
      const refused = selectsSubscription(request.query, request.operationName) ? subscriptionRefusal(where) : undefined;
      if (refused) {
        request.query = '{ __typename }';
        request.operationName = undefined;
        request.variables = {};
      }
      return {
        async didResolveOperation() {
          if (refused) throw refused;
        },
      };
    },
  };
}

function selectsSubscription(query: string | undefined, operationName: string | undefined): boolean {
  if (typeof query !== 'string' || !/\bsubscription\b/.test(query)) return false;
  try {
    return getOperationAST(parse(query, { maxTokens: LIMITS.maxTokens }), operationName)?.operation === 'subscription';
  } catch {
    return false; // Apollo reports the syntax error itself
  }
}

function subscriptionRefusal(where: 'server' | 'lambda'): GraphQLError {
  const message =
    where === 'lambda'
      ? 'Subscriptions are not supported by this deployment: AWS Lambda behind an API Gateway HTTP API has no WebSocket. Consume the order events from the EventBridge bus, or subscribe on the long-running server (npm start)'
      : 'Subscriptions are not supported over HTTP: subscribe over WebSocket at this same URL (ws:// or wss://, the graphql-transport-ws protocol of graphql-ws)';
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
}
