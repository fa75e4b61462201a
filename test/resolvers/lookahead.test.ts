/**
 * The one selection walker (src/request/selection.ts), which the look-ahead (src/resolvers/lookahead.ts)
 * collects a customer's subfields with, collects as graphql-js does (compared with graphql-js's own
 * `collectSubfields` on the same documents: `@skip`/`@include`,
 * fragments once, type conditions on abstract types), and is computed once per field node: one
 * selection object for the 50 parents of a list, not 50 walks.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  buildSchema,
  execute,
  isObjectType,
  Kind,
  parse,
  type DocumentNode,
  type FieldNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from 'graphql';
import { customerSelection, orderWindowArgs, type CustomerSelection } from '../../src/resolvers/lookahead';
import { fieldsOf, fragmentsOf, subfieldsOf } from '../../src/request/selection';
import type { CheckedWindowArgs } from '../../src/model';

// graphql-js's own implementation (internal, so only the test relies on it), from the same build.
const reference = createRequire(import.meta.url)('graphql/execution/collectFields') as {
  collectSubfields: typeof subfieldsOf;
  collectFields: typeof fieldsOf;
};

const schema = buildSchema(`
  interface Node { id: ID! }
  interface Named { name: String }
  type Customer implements Node & Named { id: ID! name: String email: String addresses: [String] orders(first: Int, after: String, month: String): [String] }
  type Order implements Node { id: ID! customer: Customer }
  union Thing = Customer | Order
  type Query { customer: Customer node: Node thing: Thing orders: [Order] }
`);

/** Runs `query` (a parsed document is reused as Apollo reuses it), collecting the look-ahead of every field that returns a customer. */
async function lookahead(query: string | DocumentNode, variables: Record<string, unknown> = {}) {
  const seen: Array<{ selection: CustomerSelection; info: GraphQLResolveInfo; windows: CheckedWindowArgs[] }> = [];
  const capture = (info: GraphQLResolveInfo) => {
    const windows: CheckedWindowArgs[] = [];
    seen.push({ selection: customerSelection(info), info, windows });
    // Customer.orders, as the real resolver finds its window arguments.
    const orders = (args: Record<string, unknown>, _ctx: unknown, child: GraphQLResolveInfo) => {
      windows.push(orderWindowArgs(child, args));
      return [];
    };
    return { __typename: 'Customer', id: 'C', orders };
  };
  const result = await execute({
    schema,
    document: typeof query === 'string' ? parse(query) : query,
    variableValues: variables,
    rootValue: {
      customer: (_: unknown, _ctx: unknown, info: GraphQLResolveInfo) => capture(info),
      node: (_: unknown, _ctx: unknown, info: GraphQLResolveInfo) => capture(info),
      thing: (_: unknown, _ctx: unknown, info: GraphQLResolveInfo) => capture(info),
      orders: () =>
        Array.from({ length: 50 }, (_, i) => ({
          id: `O${i}`,
          customer: (_a: unknown, _c: unknown, info: GraphQLResolveInfo) => capture(info),
        })),
    },
    typeResolver: (value: { __typename: string }) => value.__typename,
  });
  expect(result.errors).toBeUndefined();
  return seen;
}

const customerType = schema.getType('Customer');
if (!isObjectType(customerType)) throw new Error('no Customer');

function keysOf(fields: ReadonlyMap<string, readonly FieldNode[]>) {
  return [...fields].map(([key, nodes]) => [key, nodes.length]);
}

describe('field collection as graphql-js does it', () => {
  it.each([
    ['aliases and a field twice', '{ customer { name n: name name addresses } }', {}],
    [
      '@skip and @include, with variables',
      'query($s: Boolean!, $i: Boolean!) { customer { name @skip(if: $s) email @include(if: $i) ... @include(if: $i) { addresses } ...F @skip(if: $s) } } fragment F on Customer { id }',
      { s: true, i: false },
    ],
    [
      'a fragment spread twice is collected once',
      '{ customer { ...F ... { ...F } } } fragment F on Customer { name orders(first: 3) }',
      {},
    ],
    [
      'type conditions on interfaces and unions',
      '{ customer { ... on Node { id } ... on Named { name } ... on Thing { ... on Customer { addresses } } ...T } } fragment T on Thing { ... on Customer { email } }',
      {},
    ],
  ])('%s', async (_what, query, variables) => {
    const { info } = (await lookahead(query, variables))[0]!;
    const ours = subfieldsOf(info.schema, info.fragments, info.variableValues, customerType, info.fieldNodes);
    const theirs = reference.collectSubfields(info.schema, info.fragments, info.variableValues, customerType, info.fieldNodes);
    expect(keysOf(ours)).toEqual(keysOf(theirs));
    // The same nodes, in the same order: the first is the one a merged field executes with.
    expect([...ours.values()]).toEqual([...theirs.values()]);
    // An operation's root selection, as graphql-js collects it.
    const document = parse(query);
    const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION)!;
    const queryType = schema.getQueryType()!;
    const rootOurs = fieldsOf(schema, fragmentsOf(document), variables, queryType, operation.selectionSet);
    const rootTheirs = reference.collectFields(schema, fragmentsOf(document), variables, queryType, operation.selectionSet);
    expect(keysOf(rootOurs)).toEqual(keysOf(rootTheirs));
  });

  it('collects a merged field once per node list, runtime type and variables (a fragment spread in many places: one walk)', () => {
    const document = parse('{ a: customer { ...F } b: customer { ...F } } fragment F on Customer { name orders(first: 2) }');
    const fragments = fragmentsOf(document);
    const variables = {};
    const [a, b] = [
      ...fieldsOf(
        schema,
        fragments,
        variables,
        schema.getQueryType()!,
        (document.definitions[0] as OperationDefinitionNode).selectionSet,
      ).values(),
    ];
    const once = subfieldsOf(schema, fragments, variables, customerType, [...a!]);
    expect(subfieldsOf(schema, fragments, variables, customerType, [...a!])).toBe(once); // another array, the same nodes
    expect(subfieldsOf(schema, fragments, {}, customerType, a!)).not.toBe(once); // other variables
    expect(keysOf(subfieldsOf(schema, fragments, variables, customerType, b!))).toEqual(keysOf(once));
  });

  it('reads needs through abstract type conditions and abstract return types', async () => {
    const [viaNode, viaThing] = await lookahead(
      '{ node { ... on Named { name } ... on Customer { addresses } } thing { ... on Thing { ... on Customer { orders(first: 5) } } } }',
    );
    expect(viaNode!.selection).toEqual({ profile: true, addresses: true, windows: [] });
    expect(viaThing!.selection).toEqual({ profile: false, addresses: false, windows: [{ first: 5, month: undefined, after: undefined }] });
  });

  it('leaves out what @skip/@include leave out', async () => {
    const query = 'query($a: Boolean!) { customer { addresses @include(if: $a) orders(first: 2) @skip(if: $a) } }';
    expect((await lookahead(query, { a: true }))[0]!.selection).toEqual({ profile: false, addresses: true, windows: [] });
    expect((await lookahead(query, { a: false }))[0]!.selection).toEqual({
      profile: false,
      addresses: false,
      windows: [{ first: 2, month: undefined, after: undefined }],
    });
  });

  it('makes one window per response key (aliases), checked once', async () => {
    const { selection } = (await lookahead('{ customer { a: orders(first: 3) b: orders(month: "2026-09") a: orders(first: 3) } }'))[0]!;
    expect(selection.windows).toEqual([
      { first: 3, month: undefined, after: undefined },
      { first: 20, month: '2026-09', after: undefined },
    ]);
  });

  it('hands the orders field the arguments its look-ahead checked, not checked again', async () => {
    const { selection, windows } = (await lookahead('{ customer { a: orders(first: 3) b: orders(month: "2026-09") } }'))[0]!;
    expect(windows).toHaveLength(2);
    expect(windows[0]).toBe(selection.windows[0]);
    expect(windows[1]).toBe(selection.windows[1]);
  });
});

describe('computed once per field node', () => {
  it('gives the 50 parents of a list one selection, not 50', async () => {
    const seen = await lookahead('{ orders { id customer { name orders(first: 4) } } }');
    expect(seen).toHaveLength(50);
    expect(new Set(seen.map(({ selection }) => selection)).size).toBe(1);
  });

  it('shares one selection between requests of a parsed document when no variable is below the field', async () => {
    const document = parse('query($id: ID) { customer { name orders(first: 4) } other: customer @skip(if: false) { addresses } }');
    const [first, second] = [await lookahead(document, { id: 'a' }), await lookahead(document, { id: 'b' })];
    expect(second[0]!.selection).toBe(first[0]!.selection);
    expect(second[1]!.selection).toBe(first[1]!.selection);
    expect(second[0]!.windows[0]).toBe(first[0]!.selection.windows[0]); // the orders field's checked arguments, too
    expect(first[1]!.selection).toEqual({ profile: false, addresses: true, windows: [] });
  });

  it("recomputes when a sibling's @include adds a node to the field", async () => {
    const document = parse('query($x: Boolean!) { customer { name } customer @include(if: $x) { addresses } }');
    const [without, withIt] = [await lookahead(document, { x: false }), await lookahead(document, { x: true })];
    expect(without[0]!.selection).toEqual({ profile: true, addresses: false, windows: [] });
    expect(withIt[0]!.selection).toEqual({ profile: true, addresses: true, windows: [] });
    expect((await lookahead(document, { x: false }))[0]!.selection).toEqual(without[0]!.selection);
  });

  it('does not share a selection between operations with other variables', async () => {
    const query = parse('query($n: Int) { customer { orders(first: $n) } }');
    const [[one], [two]] = await Promise.all([lookahead(query, { n: 1 }), lookahead(query, { n: 2 })]);
    expect(one!.selection.windows[0]!.first).toBe(1);
    expect(two!.selection.windows[0]!.first).toBe(2);
  });

  it('does not share one when a variable sits in a fragment spread below the field', async () => {
    const query = parse('query($n: Int) { customer { ...F } } fragment F on Customer { orders(first: $n) }');
    const [one, two] = [await lookahead(query, { n: 1 }), await lookahead(query, { n: 2 })];
    expect(one[0]!.selection.windows[0]!.first).toBe(1);
    expect(two[0]!.selection.windows[0]!.first).toBe(2);
  });
});
