import { readFileSync } from 'node:fs';
import {
  buildSchema as buildSdl,
  findBreakingChanges,
  printSchema,
  type GraphQLInputObjectType,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/schema';
import { MAX_LINES } from '../../src/model';

const served = buildSchema();

describe('the GraphQL contract', () => {
  it('serves exactly the committed schema snapshot (npm run schema:print updates it)', () => {
    const snapshot = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(`${printSchema(served)}\n`).toBe(snapshot);
  });

  it('has no breaking change against the contract of the brief', () => {
    const brief = buildSdl(readFileSync(new URL('./brief-contract.graphql', import.meta.url), 'utf8'));
    expect(findBreakingChanges(brief, served)).toEqual([]);
  });

  it("conforms to Relay's specifications: Node, node and nodes, a complete PageInfo", () => {
    const node = served.getType('Node') as GraphQLInterfaceType;
    expect(Object.values(node.getFields()).map((field) => `${field.name}: ${String(field.type)}`)).toEqual(['id: ID!']);
    expect(served.getPossibleTypes(node).map((type) => type.name)).toEqual(['Customer', 'Address', 'Order', 'Product']);
    const query = served.getQueryType()!.getFields();
    expect(
      [query.node, query.nodes].map(
        (field) => `${field!.name}(${field!.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ')}): ${String(field!.type)}`,
      ),
    ).toEqual(['node(id: ID!): Node', 'nodes(ids: [ID!]!): [Node]!']);
    const pageInfo = (served.getType('PageInfo') as GraphQLObjectType).getFields();
    expect(Object.values(pageInfo).map((field) => `${field.name}: ${String(field.type)}`)).toEqual([
      'hasNextPage: Boolean!',
      'endCursor: String',
      'hasPreviousPage: Boolean!',
      'startCursor: String',
    ]);
  });

  it('documents the line bound the server enforces (MAX_LINES)', () => {
    const lines = (served.getType('PlaceOrderInput') as GraphQLInputObjectType).getFields().lines!;
    expect(lines.description).toContain(`At most ${MAX_LINES} lines`);
    expect(lines.description?.match(/\d+/g)).toEqual([String(MAX_LINES)]); // no other figure to contradict it
  });

  it('would notice a breaking change (the check is not vacuous)', () => {
    const brief = buildSdl(readFileSync(new URL('./brief-contract.graphql', import.meta.url), 'utf8'));
    const broken = buildSdl(printSchema(served).replace('totalCents: Int!', 'totalCents: String!'));
    expect(findBreakingChanges(brief, broken).map((change) => change.description)).toEqual([
      'Order.totalCents changed type from Int! to String!.',
    ]);
  });
});
