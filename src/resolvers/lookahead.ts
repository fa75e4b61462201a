/**
 * Look-ahead: what a field's selection set wants of a customer's collection, read before any
 * child resolver runs, so the root field can plan one read for everything below it.
 *
 * Handles aliases (every `orders(...)` alias is its own window), named and inline fragments
 * (with type conditions), variables, and `@include` / `@skip`. Window arguments are validated
 * here, so a bad `first`, `month` or cursor is BAD_USER_INPUT before any request is made.
 */
import {
  getArgumentValues,
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { checkOrderWindow, type CollectionNeed, type OrderWindowArgs } from '../model';

const PROFILE_FIELDS = new Set(['name', 'email', 'createdAt']);

/** The need of the Customer-typed field being resolved, for the customer `customerId`. */
export function customerNeed(info: GraphQLResolveInfo, customerId: string): CollectionNeed {
  const customerType = namedObjectType(info);
  const need: CollectionNeed = { profile: false, addresses: false, windows: [] };
  for (const field of subfields(info, customerType, info.fieldNodes)) {
    const name = field.name.value;
    if (PROFILE_FIELDS.has(name)) need.profile = true;
    else if (name === 'addresses') need.addresses = true;
    else if (name === 'orders') {
      const definition = customerType.getFields().orders;
      if (!definition) continue;
      const args = getArgumentValues(definition, field, info.variableValues) as OrderWindowArgs;
      need.windows.push(checkOrderWindow(customerId, args));
    }
  }
  // Existence is always wanted; with no window to prove it, the profile tells.
  if (need.windows.length === 0 && !need.addresses) need.profile = true;
  return need;
}

/** The need of a `Customer.orders(...)` field itself: its one window. */
export function windowNeed(customerId: string, args: OrderWindowArgs): CollectionNeed {
  return { profile: false, addresses: false, windows: [checkOrderWindow(customerId, args)] };
}

function namedObjectType(info: GraphQLResolveInfo): GraphQLObjectType {
  let type = info.returnType;
  while ('ofType' in type) type = type.ofType;
  if (!isObjectType(type)) throw new Error(`look-ahead needs an object type, got ${String(type)}`);
  return type;
}

/** The fields selected under `nodes` on `type`, fragments flattened, skipped ones left out. */
function subfields(info: GraphQLResolveInfo, type: GraphQLObjectType, nodes: readonly FieldNode[]): FieldNode[] {
  const out: FieldNode[] = [];
  const visitedFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (!isIncluded(info, selection)) continue;
      if (selection.kind === Kind.FIELD) out.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!selection.typeCondition || selection.typeCondition.name.value === type.name) visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = info.fragments[name];
        if (!fragment || visitedFragments.has(name) || fragment.typeCondition.name.value !== type.name) continue;
        visitedFragments.add(name);
        visit(fragment.selectionSet);
      }
    }
  };
  for (const node of nodes) visit(node.selectionSet);
  return out;
}

function isIncluded(info: GraphQLResolveInfo, node: Parameters<typeof getDirectiveValues>[1]): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, info.variableValues);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, info.variableValues);
  return include?.if !== false;
}
