/**
 * Queries and mutations run compiled by graphql-jit (src/http/execution.ts): for the same schema,
 * resolvers, document and variables, the executor answers exactly what graphql-js's `execute`
 * answers — data, errors (message, path, locations, extensions) and the error each wraps — so
 * Apollo's error formatting and every whole-response test mean the same thing under either.
 */
import { describe, expect, it } from 'vitest';
import { execute, GraphQLError, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GatewayExecutor, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { compiledExecution } from '../src/http/execution';

class DomainLikeError extends Error {
  readonly code = 'NOT_FOUND';
}

const schema = makeExecutableSchema({
  typeDefs: `
    interface Node { id: ID! }
    type Customer implements Node { id: ID! name: String! tags(first: Int = 2): [String!]! friend: Customer }
    type Order implements Node { id: ID! total: Int! }
    type Query {
      customer(id: ID!): Customer
      node(id: ID!): Node
      nodes(ids: [ID!]!): [Node]!
      domainError: String
      graphqlError: String
      nullForNonNull: Customer!
    }
    type Mutation { rename(id: ID!, name: String!): Customer! }
  `,
  resolvers: {
    Node: { __resolveType: (value: { kind: string }) => value.kind },
    Customer: {
      tags: (_c: unknown, { first }: { first: number }) => ['a', 'b', 'c'].slice(0, first),
      friend: (c: { id: string }) => (c.id === 'c1' ? { kind: 'Customer', id: 'c2', name: 'Bea' } : null),
    },
    Query: {
      customer: async (_r: unknown, { id }: { id: string }) => (id === 'gone' ? null : { kind: 'Customer', id, name: 'Ana' }),
      node: (_r: unknown, { id }: { id: string }) =>
        id.startsWith('o') ? { kind: 'Order', id, total: 12 } : { kind: 'Customer', id, name: 'Ana' },
      nodes: (_r: unknown, { ids }: { ids: string[] }) =>
        ids.map((id) => {
          if (id === 'bad') throw new DomainLikeError(`${id} is not an id`);
          return { kind: 'Order', id, total: 1 };
        }),
      domainError: () => {
        throw new DomainLikeError('customer c9 was not found');
      },
      graphqlError: async () => {
        throw new GraphQLError('refused', { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
      },
      nullForNonNull: () => null,
    },
    Mutation: { rename: (_r: unknown, { id, name }: { id: string; name: string }) => ({ kind: 'Customer', id, name }) },
  },
});

let executor: GatewayExecutor;
async function compiled(document: DocumentNode, variables: Record<string, unknown> = {}, operationName?: string): Promise<ExecutionResult> {
  executor ??= (
    await compiledExecution(schema).load({
      apollo: { key: undefined, keyHash: undefined, graphRef: undefined, graphVariant: 'current' },
    } as never)
  ).executor!;
  const request = { document, operationName, context: {}, request: { variables } } as unknown as GatewayGraphQLRequestContext;
  return (await executor(request)) as ExecutionResult;
}

/** A result as a client receives it, and the class of the error each GraphQL error wraps. */
function observed(result: ExecutionResult) {
  return {
    json: JSON.parse(JSON.stringify(result)) as unknown,
    errors: (result.errors ?? []).map((error) => ({
      isGraphQLError: error instanceof GraphQLError,
      extensions: error.extensions,
      original: error.originalError?.constructor.name,
    })),
  };
}

const cases: Array<[string, string, Record<string, unknown>?]> = [
  [
    'data with aliases, fragments, arguments and defaults',
    '{ a: customer(id: "c1") { ...F tags friend { name tags(first: 1) } } } fragment F on Customer { id name }',
  ],
  [
    'variables and @skip/@include',
    'query($id: ID!, $s: Boolean!) { customer(id: $id) { id name @skip(if: $s) tags @include(if: $s) } }',
    { id: 'c7', s: true },
  ],
  ['abstract types and __typename', '{ node(id: "o1") { __typename id ... on Order { total } ... on Customer { name } } }'],
  ['a null object', '{ customer(id: "gone") { id } }'],
  ['a domain error thrown by a resolver', '{ domainError customer(id: "c1") { id } }'],
  ['a GraphQLError with extensions, thrown asynchronously', '{ graphqlError }'],
  ['an error inside a list item', '{ nodes(ids: ["o1", "bad", "o3"]) { id } }'],
  ['null for a non-null field propagates to data', '{ nullForNonNull { id } }'],
  ['a mutation', 'mutation { rename(id: "c1", name: "Eve") { id name } }'],
];

describe('compiled execution answers as graphql-js does', () => {
  it.each(cases)('%s', async (_what, source, variables = {}) => {
    const document = parse(source);
    const reference = await execute({ schema, document, variableValues: variables });
    expect(observed(await compiled(document, variables))).toEqual(observed(reference));
  });

  it('keeps the operations of one document apart, a second time too (compiled queries are kept per operation)', async () => {
    const document = parse('query A { customer(id: "c1") { name } } query B { node(id: "o2") { id } }');
    const [a, b, again] = [await compiled(document, {}, 'A'), await compiled(document, {}, 'B'), await compiled(document, {}, 'A')];
    expect(a).toEqual({ data: { customer: { name: 'Ana' } } });
    expect(b).toEqual({ data: { node: { id: 'o2' } } });
    expect(again).toEqual(a);
  });
});
