/**
 * Look-ahead: what a field's selection set wants of a customer's collection, read before any
 * child resolver runs, so the field that returns a customer plans one read for everything below it.
 *
 * The subfields are collected by the one selection walker (src/request/selection.ts: graphql-js's
 * field-collection rules, `@skip` / `@include`, fragments, type conditions on abstract types), so
 * `... on Node` (an interface Customer implements) counts as it would at execution. The runtime
 * type is `Customer` even when the field returns an abstract type.
 *
 * Computed once per field node, not once per request or per parent. A selection no variable can
 * change (no `$` anywhere below the field: its directives and arguments are literals, the usual
 * screen) is the same for every request of a parsed document, so it is memoised per the field's
 * first AST node (Apollo keeps a repeated query's parsed document); the node list must match, since
 * a sibling's `@include($x)` can add nodes. Otherwise it is memoised per `info.fieldNodes` (the
 * same array for every parent of a list, as graphql-js memoises subfield collection) and per
 * operation's `variableValues`. Window arguments (`first`, `month`) are checked in that one pass,
 * and the `orders` field itself reuses them (`orderWindowArgs`). Only the cursor, which belongs to
 * one customer, is decoded per customer (once per request: `CustomerCollections.window`).
 */
import { getArgumentValues, isObjectType, Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo } from 'graphql';
import { sameNodes, subfieldsOf } from '../request/selection';
import {
  checkWindowArgs,
  customerCollection,
  type CheckedWindowArgs,
  type CollectionNeed,
  type CustomerCollections,
  type OrderWindowArgs,
} from '../model';

/** The collection a customer is, and the member each field of its GraphQL type reads (members.ts). */
const collection = customerCollection;
const CUSTOMER = collection.graphql.type!;

/** What a selection of a customer wants, the same for every customer it is asked of. */
export type CustomerSelection = Omit<CollectionNeed, 'windows'> & {
  /** One per window field's response key (an alias is its own window), arguments checked. */
  windows: readonly CheckedWindowArgs[];
};

interface Memo<V> {
  /** Selections below variable-free nodes, per first node, with the node list they were computed for. */
  byDocument: WeakMap<FieldNode, { nodes: readonly FieldNode[]; value: V }>;
  byRequest: WeakMap<readonly FieldNode[], WeakMap<object, V>>;
}

const newMemo = <V>(): Memo<V> => ({ byDocument: new WeakMap(), byRequest: new WeakMap() });

function memoised<V>(memo: Memo<V>, info: GraphQLResolveInfo, compute: (perDocument: boolean) => V): V {
  const nodes = info.fieldNodes;
  if (nodes.every((node) => variableFree(node, info.fragments))) {
    const hit = memo.byDocument.get(nodes[0]!);
    if (hit && sameNodes(hit.nodes, nodes)) return hit.value;
    const value = compute(true);
    memo.byDocument.set(nodes[0]!, { nodes: [...nodes], value });
    return value;
  }
  let byVariables = memo.byRequest.get(nodes);
  if (!byVariables) memo.byRequest.set(nodes, (byVariables = new WeakMap()));
  let value = byVariables.get(info.variableValues);
  if (value === undefined) byVariables.set(info.variableValues, (value = compute(false)));
  return value;
}

/** Whether no variable occurs below a field node (its selection set, the fragments it spreads); per node. */
const variableFreeNodes = new WeakMap<FieldNode, boolean>();

function variableFree(node: FieldNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): boolean {
  let free = variableFreeNodes.get(node);
  if (free === undefined) variableFreeNodes.set(node, (free = !mentionsVariable(node.selectionSet, fragments, new Set())));
  return free;
}

function mentionsVariable(value: unknown, fragments: Readonly<Record<string, FragmentDefinitionNode>>, spread: Set<string>): boolean {
  if (Array.isArray(value)) return value.some((child) => mentionsVariable(child, fragments, spread));
  if (value === null || typeof value !== 'object') return false;
  const node = value as { kind?: string; name?: { value: string } };
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.FRAGMENT_SPREAD && node.name && !spread.has(node.name.value)) {
    spread.add(node.name.value);
    if (mentionsVariable(fragments[node.name.value], fragments, spread)) return true;
  }
  for (const [key, child] of Object.entries(node)) if (key !== 'loc' && mentionsVariable(child, fragments, spread)) return true;
  return false;
}

const selections: Memo<CustomerSelection> = newMemo();
/**
 * The checked arguments of each `orders` field node a look-ahead met: per node when its selection
 * was memoised per document, else per operation (its `variableValues`). The child field finds its
 * own there (its first node is the same object).
 */
const documentWindows = new WeakMap<FieldNode, CheckedWindowArgs>();
const checkedWindows = new WeakMap<object, WeakMap<FieldNode, CheckedWindowArgs>>();

function windowsOf(variables: object): WeakMap<FieldNode, CheckedWindowArgs> {
  let byNode = checkedWindows.get(variables);
  if (!byNode) checkedWindows.set(variables, (byNode = new WeakMap()));
  return byNode;
}

/** What the customer-returning field being resolved wants of a customer (memoised per field node). */
export function customerSelection(info: GraphQLResolveInfo): CustomerSelection {
  return memoised(selections, info, (perDocument) => {
    const customerType = info.schema.getType(CUSTOMER);
    if (!isObjectType(customerType)) throw new Error(`look-ahead needs the object type ${CUSTOMER}`);
    const wanted: Record<string, boolean> = Object.fromEntries(collection.head.members.map((member) => [member.name, false]));
    const windows: CheckedWindowArgs[] = [];
    for (const [name, nodes] of subfieldsOf(info.schema, info.fragments, info.variableValues, customerType, info.fieldNodes)) {
      const field = nodes[0]!.name.value;
      const member = collection.graphql.fields.get(field);
      if (!member) continue;
      if (member !== collection.window) wanted[member.name] = true;
      else {
        const definition = customerType.getFields()[field];
        if (!definition) throw new Error(`${CUSTOMER}.${field} is not in the schema (response key ${name})`);
        // As graphql-js executes a merged field: with its first node's arguments.
        const node = nodes[0]!;
        const args = checkWindowArgs(getArgumentValues(definition, node, info.variableValues) as OrderWindowArgs);
        (perDocument ? documentWindows : windowsOf(info.variableValues)).set(node, args);
        windows.push(args);
      }
    }
    // Existence is always wanted; when nothing read from the top proves it, the root (the profile) tells.
    if (windows.length === 0 && collection.head.members.every((m) => m === collection.root || !wanted[m.name]))
      wanted[collection.root.name] = true;
    return { ...wanted, windows } as unknown as CustomerSelection;
  });
}

/** The need of one customer for the field being resolved: its selection, cursors decoded for that customer. */
export function customerNeed(info: GraphQLResolveInfo, collections: CustomerCollections, customerId: string): CollectionNeed {
  const selection = customerSelection(info);
  return { ...selection, windows: selection.windows.map((args) => collections.window(customerId, args)) };
}

/**
 * The checked arguments of the `Customer.orders` field being resolved: those its parent's
 * look-ahead checked, else checked now (a customer reached without look-ahead, e.g. a mutation's
 * result) and kept for the field's other parents.
 */
export function orderWindowArgs(info: GraphQLResolveInfo, args: OrderWindowArgs): CheckedWindowArgs {
  const node = info.fieldNodes[0]!;
  const known = documentWindows.get(node);
  if (known) return known;
  const byNode = windowsOf(info.variableValues);
  let checked = byNode.get(node);
  if (!checked) byNode.set(node, (checked = checkWindowArgs(args)));
  return checked;
}
