/**
 * The one selection walker of the product: which fields a selection set asks of a runtime type,
 * by response key, exactly as graphql-js collects them at execution (`@skip` / `@include` with the
 * operation's variables, inline fragments and spreads, a fragment collected once per collection, a
 * type condition matching the type itself or an abstract type it belongs to). Built on
 * `@graphql-tools/utils`' `collectFields` / `collectSubFields`, graphql-js's own rules re-exported
 * publicly (graphql 16 keeps its `collectFields` internal); test/resolvers/lookahead.test.ts
 * compares the two on the same documents.
 *
 * Users: the look-ahead (src/resolvers/lookahead.ts: what a customer's selection wants), the cost
 * (src/admission/cost.ts: what an operation may read, and which root fields it selects, which
 * sign-in and the mutation-field limit of src/admission/pipeline.ts decide on).
 *
 * Memoised per field node: the collection of a merged field (its node list) on a runtime type is
 * kept per its first node (a WeakMap: it lives as long as the parsed document), per the variables
 * object it was computed with, and per type; the node list must match, since a sibling's
 * `@include($x)` can add nodes. So the 50 parents of a list and the many places one fragment is
 * spread (a "fragment bomb") are collected once, and nothing outlives the document or the request.
 */
import { collectFields, collectSubFields, type VariableValues } from '@graphql-tools/utils';
import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

export type Fragments = Readonly<Record<string, FragmentDefinitionNode>>;
export type Variables = Readonly<Record<string, unknown>>;
/** Field nodes by response key, in selection order; the first node is the one graphql-js executes the field with. */
export type CollectedFields = ReadonlyMap<string, readonly FieldNode[]>;

/** The fragments of a document by name (graphql-js's `info.fragments`). */
export function fragmentsOf(document: DocumentNode): Fragments {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return fragments;
}

interface Collected {
  nodes: readonly FieldNode[];
  type: GraphQLObjectType;
  fields: CollectedFields;
}

const bySelectionSet = new WeakMap<SelectionSetNode, WeakMap<Variables, Map<GraphQLObjectType, CollectedFields>>>();
const byFirstNode = new WeakMap<FieldNode, WeakMap<Variables, Collected[]>>();

/** The fields an operation's (or any) selection set asks of `runtimeType`: graphql-js's `collectFields`. */
export function fieldsOf(
  schema: GraphQLSchema,
  fragments: Fragments,
  variables: Variables,
  runtimeType: GraphQLObjectType,
  selectionSet: SelectionSetNode,
): CollectedFields {
  let byVariables = bySelectionSet.get(selectionSet);
  if (!byVariables) bySelectionSet.set(selectionSet, (byVariables = new WeakMap()));
  let byType = byVariables.get(variables);
  if (!byType) byVariables.set(variables, (byType = new Map()));
  let fields = byType.get(runtimeType);
  if (!fields)
    byType.set(
      runtimeType,
      (fields = collectFields(
        schema,
        fragments as Record<string, FragmentDefinitionNode>,
        wrapped(variables),
        runtimeType,
        selectionSet,
      ).fields),
    );
  return fields;
}

/** The fields below a merged field (its nodes) on `runtimeType`: graphql-js's `collectSubfields`. */
export function subfieldsOf(
  schema: GraphQLSchema,
  fragments: Fragments,
  variables: Variables,
  runtimeType: GraphQLObjectType,
  fieldNodes: readonly FieldNode[],
): CollectedFields {
  const first = fieldNodes[0];
  if (!first) return new Map();
  let byVariables = byFirstNode.get(first);
  if (!byVariables) byFirstNode.set(first, (byVariables = new WeakMap()));
  let known = byVariables.get(variables);
  if (!known) byVariables.set(variables, (known = []));
  const hit = known.find((entry) => entry.type === runtimeType && sameNodes(entry.nodes, fieldNodes));
  if (hit) return hit.fields;
  const fields = collectSubFields(
    schema,
    fragments as Record<string, FragmentDefinitionNode>,
    wrapped(variables),
    runtimeType,
    fieldNodes as FieldNode[],
  ).fields;
  known.push({ nodes: [...fieldNodes], type: runtimeType, fields });
  return fields;
}

/**
 * `@graphql-tools/utils` 12 takes graphql 17's variable shape and, on graphql 16, reads its
 * `coerced` values only: one wrapper per variables object, so its own memo (per argument identity) holds.
 */
const wrappers = new WeakMap<Variables, VariableValues>();
function wrapped(variables: Variables): VariableValues {
  let wrapper = wrappers.get(variables);
  if (!wrapper) wrappers.set(variables, (wrapper = { coerced: variables, sources: {} }));
  return wrapper;
}

/** Whether two field-node lists are the same nodes, in order (a merged field's identity). */
export function sameNodes(a: readonly FieldNode[], b: readonly FieldNode[]): boolean {
  return a.length === b.length && a.every((node, i) => node === b[i]);
}
