/**
 * The cost of an operation, computed before it runs (src/admission/pipeline.ts admits or refuses on it).
 *
 * `reads` is a proven upper bound of the items DynamoDB reads for the operation (Query, GetItem
 * and BatchGetItem items scanned), whatever the data: each field that reads is charged what its
 * own reads can reach at most, and a list multiplies what is below it by its size. The field
 * terms, and why each holds:
 *
 * | field | items | why |
 * | --- | --- | --- |
 * | `Query.customer`, `customerByEmail`, `me`, `Order.customer` | 2 | the profile, plus one GetItem telling a missing customer from an empty window |
 * | the customer collection's fields | the declaration's | `collectionReads`: a head member's field the head's bounds (the head Query's Limit), a window field `first + 1` |
 * | `Query.order`, `Order.lines`, `OrderEvent.order`, `product`, `products(first)` | the pattern's bound | `orderDetail`, `product`, `products`: the `Limit` (or key) of the request each builds |
 * | `Query.ordersByStatus(first)` | shards × W | `statusPageReadBound` (status-index.ts), W = first + 1, shards the server's table's `writeShards` (`CostSettings`) |
 * | `Query.ordersBySku(first)` | W × 96 + first | `skuPageReadBound` (sku-index.ts): index entries, then the headers |
 * | `Mutation.placeOrder` | inputs + peeks + detail | `orderInputs`' bound (the distinct SKUs and the profile), and on a replay the idempotency record (`IDEMPOTENCY_PEEKS` times) and the order |
 * | `Mutation.updateCustomer`, `updateOrderStatus`, `putAddress`, `removeAddress` | 1 | one consistent read of the root (`customerProfile`, `orderHeader`); a conflict hands the next attempt its item, not a read |
 * | `Query.node` | 2 + the order detail | the largest of its id's reads: a bare id reads its customer and its order (one exists: items below are the found one's), an address id the collection head, a product id 1 |
 * | `Query.nodes(ids)` | ids × `Query.node` | each id as `node`; its list repeats the selection once an id (over 100 ids is refused before any read) |
 *
 * A subscription reads at two moments, and is estimated for each apart: its start (`startReads`,
 * what the root field's own `subscribe` reads before the first event: `SUBSCRIBE_READS`,
 * `orderUpdated` one order detail, 1 + 96, to decide access; the others nothing) and each event
 * (`reads` and `cost`: the event's execution, the root field reading nothing and `OrderEvent.order`
 * one order detail). src/live/paid.ts takes each from the read quota before it is read.
 *
 * Lists: a connection's `nodes` and `edges` repeat their selection `first` times, `addresses` 10
 * times, `lines` 96 times and `Query.nodes` once an id. Loaders only ever save reads (a memo, a merged batch), so a sum of
 * per-field bounds bounds the operation. `first` outside 1..100, and a window's bad arguments (a
 * month), are refused here, by the estimate, so no parent field reads before the refusal.
 *
 * `cost` (what `LIMITS.maxCost`, a subscription event's `LIMITS.maxEventCost` and the read quota
 * count) is `reads` plus 1 for every resolved
 * field of an object type (the resolver work and response size); scalar fields are free, since
 * they come with the item already read. `writes` bounds the items a mutation writes (the write
 * quota). `test/cost-bound.int.test.ts` checks `reads` against the plan DynamoDB reported, over
 * generated operations and adversarial data.
 */
import type { OperationEstimate } from '../request/estimate';
import {
  getArgumentValues,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isListType,
  isNonNullType,
  type DocumentNode,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
} from 'graphql';
import { fieldsOf, fragmentsOf, sameNodes, subfieldsOf, type CollectedFields, type Fragments } from '../request/selection';
import {
  customerCollection,
  type CollectionDeclaration,
  checkFirst,
  FIRST_MAX,
  IDEMPOTENCY_PEEKS,
  MAX_LINES,
  MAX_STORED_LINES,
  MUTATION_WRITE_BOUNDS,
  NODES_MAX,
  customerProfile,
  EXAMPLE_ID,
  idempotencyRecord,
  orderDetail,
  orderHeader,
  orderInputs,
  product,
  products,
  skuPageReadBound,
  statusPageReadBound,
} from '../model';

/** What admission attaches to a request: declared with the request's context (src/request/estimate.ts). */
export type { OperationEstimate } from '../request/estimate';

type Args = Record<string, unknown>;

/**
 * What an estimate depends on beyond the operation: the settings of the table the server runs on
 * (`Table.writeShards`, the status index's shard count). createAdmission takes them.
 */
export interface CostSettings {
  writeShards: number;
}

/**
 * `first` as the model will use it: the default when absent. Outside 1..100 the estimate refuses
 * it (BAD_USER_INPUT, the model's `checkFirst`): a nested list's parent would otherwise read before
 * the list's own resolver refused.
 */
export function pageSize(args: Args): number {
  return checkFirst(typeof args.first === 'number' ? args.first : null);
}

const CUSTOMER_READS = 2;
/**
 * The reads of the fields a model pattern serves alone are its declaration's bound, computed from
 * the request it builds (src/model/access-pattern.ts), which test/access-pattern-bounds.int.test.ts
 * checks on adversarial data: an order's detail (one Query of its collection), a product, a page of
 * the catalog, an order's inputs (its distinct SKUs and the profile), an idempotency record, a
 * header (updateOrderStatus) and a profile (updateCustomer, the address mutations).
 */
const ORDER_DETAIL_READS = orderDetail.pattern.bound(EXAMPLE_ID);
const PROFILE_READS = customerProfile.pattern.bound(EXAMPLE_ID, true);
const HEADER_READS = orderHeader.pattern.bound(EXAMPLE_ID);
const IDEMPOTENCY_READS = idempotencyRecord.pattern.bound(EXAMPLE_ID, 'key');
/** orderInputs' bound for `lines` distinct SKUs (the most a request of that many lines reads). */
const orderInputReads = (lines: number) =>
  orderInputs.pattern.bound(
    EXAMPLE_ID,
    Array.from({ length: lines }, (_, i) => `SKU-${i}`),
  );
/**
 * One node id: a bare id's two candidates (a customer, read as `customer(id)`, and an order, read
 * as `order(id)`; what the selection asks of a type is charged below, the most expensive type), an
 * address's collection head, or one product.
 */
const NODE_READS = Math.max(CUSTOMER_READS + ORDER_DETAIL_READS, customerCollection.head.bound, 1);

/** Ids of a `nodes` call, at most NODES_MAX (more is refused before any read). */
function nodeIds(args: Args): number {
  return Array.isArray(args.ids) ? Math.min(args.ids.length, NODES_MAX) : NODES_MAX;
}

/** Lines of a placeOrder input (refused above MAX_LINES before any request). */
function inputLines(args: Args): number {
  const lines = (args.input as { lines?: unknown } | undefined)?.lines;
  return Array.isArray(lines) ? Math.min(lines.length, MAX_LINES) : MAX_LINES;
}

/**
 * What the fields of a collection's GraphQL type read themselves, from its declaration
 * (src/model/customer-collection/members.ts): a head member's field the head Query (at most the
 * head's bounds: the profile and the addresses), a window field its page and one look-ahead
 * item; the root's fields (the profile's) nothing, answered with the root the parent read.
 */
function collectionReads(collection: CollectionDeclaration): Record<string, (args: Args) => number> {
  const reads: Record<string, (args: Args) => number> = {};
  for (const member of collection.members) {
    if (member === collection.root) continue;
    for (const field of member.fields ?? [])
      reads[`${collection.graphql.type}.${field}`] =
        member === collection.window
          ? (args) => {
              collection.runs.check?.(args); // the window's own arguments (a month), refused before any read
              return pageSize(args) + 1;
            }
          : () => collection.head.bound;
  }
  return reads;
}

/** The lists a collection's head members answer, and their declared bounds. */
function collectionListSizes(collection: CollectionDeclaration): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const member of collection.head.members)
    if (member !== collection.root && typeof member.bound === 'number')
      for (const field of member.fields ?? []) sizes[`${collection.graphql.type}.${field}`] = member.bound;
  return sizes;
}

/** The items a field reads itself, at most, keyed `Type.field`. Fields not listed read nothing. */
export const FIELD_READS: Record<string, (args: Args, settings: CostSettings) => number> = {
  'Query.customer': () => CUSTOMER_READS,
  'Query.customerByEmail': () => CUSTOMER_READS,
  'Query.me': () => CUSTOMER_READS,
  'Order.customer': () => CUSTOMER_READS,
  // The fields of the customer collection's type, from its declaration: see collectionReads.
  ...collectionReads(customerCollection),
  'Query.order': () => ORDER_DETAIL_READS,
  'Order.lines': () => ORDER_DETAIL_READS,
  'Query.ordersByStatus': (args, settings) => statusPageReadBound(pageSize(args), settings.writeShards),
  'Query.ordersBySku': (args) => skuPageReadBound(pageSize(args)),
  'Query.product': () => product.pattern.bound('SKU', false),
  'Query.products': (args) => products.pattern.bound({ first: pageSize(args) }),
  'Query.node': () => NODE_READS,
  'Query.nodes': (args) => nodeIds(args) * NODE_READS,
  // The catalog and the profile (one BatchGetItem); then, on a replay, the idempotency record (read when a
  // same-key request held it, IDEMPOTENCY_PEEKS times at most) and the order it names.
  'Mutation.placeOrder': (args) => orderInputReads(inputLines(args)) + IDEMPOTENCY_PEEKS * IDEMPOTENCY_READS + ORDER_DETAIL_READS,
  // One consistent read of the aggregate's root; a conflict hands the next attempt its item (ALL_OLD), not a read.
  'Mutation.updateCustomer': () => PROFILE_READS,
  'Mutation.updateOrderStatus': () => HEADER_READS,
  'Mutation.createCustomer': () => 0,
  'Mutation.putAddress': () => PROFILE_READS,
  'Mutation.removeAddress': () => PROFILE_READS,
  'Mutation.putProduct': () => 0,
  // Per event: a subscription's root and the event's own fields read nothing; `order` reads the order.
  'Subscription.orderUpdated': () => 0,
  'Subscription.myOrderEvents': () => 0,
  'Subscription.ordersByStatusEvents': () => 0,
  'OrderEvent.order': () => ORDER_DETAIL_READS,
};

/**
 * What a subscription field's `subscribe` reads itself, at most, before its first event (keyed
 * `Subscription.field`; every subscription field has an entry, test/cost-bound.int.test.ts checks).
 */
export const SUBSCRIBE_READS: Record<string, (args: Args) => number> = {
  // One strongly consistent read of the order (as order(id)), which its access rule decides on.
  'Subscription.orderUpdated': () => ORDER_DETAIL_READS,
  'Subscription.myOrderEvents': () => 0,
  'Subscription.ordersByStatusEvents': () => 0,
};

/**
 * Items a mutation writes, at most: computed from the transactions the model builds
 * (src/model/write-bounds.ts); placeOrder's from the lines of its input.
 */
export const MUTATION_WRITES: Record<string, (args: Args) => number> = Object.fromEntries(
  Object.entries(MUTATION_WRITE_BOUNDS).map(([name, bound]) => [name, (args: Args) => bound(inputLines(args))]),
);
/** A mutation with no entry above is charged a whole transaction (100 actions). */
const UNKNOWN_MUTATION_WRITES = 100;

/** Lists of objects that are not connections, and how many elements they hold at most. */
export const LIST_SIZES: Record<string, number> = {
  ...collectionListSizes(customerCollection),
  'Order.lines': MAX_STORED_LINES,
  'Query.nodes': NODES_MAX,
};

/** Lists whose size an argument tells: `nodes(ids)` holds one element an id. */
export const LIST_ARG_SIZES: Record<string, (args: Args) => number> = { 'Query.nodes': nodeIds };

/** The fields of a `…Connection` type that repeat their selection `first` times. */
export const CONNECTION_LISTS = new Set(['nodes', 'edges']);

interface Tally {
  reads: number;
  overhead: number;
  writes: number;
}

/** Estimates one operation of `document` with its (already coerced) variables, on a table of `settings`. */
export function estimateOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Args,
  settings: CostSettings,
): OperationEstimate {
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'query'
        ? schema.getQueryType()
        : schema.getSubscriptionType();
  if (!root) return { reads: 0, cost: 0, writes: 0, mutationFields: 0, dataFields: 0, startReads: 0, startCost: 0 };
  const walker = new Walker(schema, fragmentsOf(document), variables, settings);
  const fields = fieldsOf(schema, walker.fragments, variables, root, operation.selectionSet);
  const tally = walker.fields(fields, root, 1);
  const dataFields = [...fields.values()].filter((nodes) => !nodes[0]!.name.value.startsWith('__')).length;
  const startReads = operation.operation === 'subscription' ? walker.startReads(fields, root) : 0;
  return {
    reads: tally.reads,
    cost: tally.reads + tally.overhead,
    writes: tally.writes,
    mutationFields: operation.operation === 'mutation' ? dataFields : 0,
    dataFields,
    startReads,
    startCost: startReads,
  };
}

const NOTHING: Tally = { reads: 0, overhead: 0, writes: 0 };

/**
 * Walks the fields as graphql-js executes them (src/request/selection.ts: merged by response key,
 * fragments flattened, skipped ones left out), each merged field charged once with its first
 * node's arguments. What is below a merged field is computed once per its node list, runtime type
 * and page size, so a fragment spread in many places costs one walk: linear, no fragment bombs.
 */
class Walker {
  private readonly below = new WeakMap<
    FieldNode,
    Array<{ nodes: readonly FieldNode[]; type: GraphQLObjectType; page: number; tally?: Tally }>
  >();

  constructor(
    private readonly schema: GraphQLSchema,
    readonly fragments: Fragments,
    private readonly variables: Args,
    private readonly settings: CostSettings,
  ) {}

  /** The cost of collected fields on `type`; `page` is the page size when `type` is a connection. */
  fields(fields: CollectedFields, type: GraphQLObjectType, page: number): Tally {
    const total: Tally = { reads: 0, overhead: 0, writes: 0 };
    for (const nodes of fields.values()) add(total, this.field(nodes, type, page));
    return total;
  }

  /** What the root fields' own `subscribe` read before the first event (SUBSCRIBE_READS). */
  startReads(fields: CollectedFields, root: GraphQLObjectType): number {
    let total = 0;
    for (const [node] of fields.values()) {
      const definition = root.getFields()[node!.name.value];
      if (!definition) continue; // introspection, or refused by validation already
      const args = getArgumentValues(definition as GraphQLField<unknown, unknown>, node!, this.variables) as Args;
      total += SUBSCRIBE_READS[`${root.name}.${node!.name.value}`]?.(args) ?? 0;
    }
    return total;
  }

  private field(nodes: readonly FieldNode[], parent: GraphQLObjectType, page: number): Tally {
    const node = nodes[0]!;
    const name = node.name.value;
    if (name.startsWith('__')) return { reads: 0, overhead: node.selectionSet ? 1 : 0, writes: 0 };
    const definition = parent.getFields()[name];
    if (!definition) return NOTHING; // validation refused it already
    const args = getArgumentValues(definition as GraphQLField<unknown, unknown>, node, this.variables) as Args;
    const key = `${parent.name}.${name}`;
    const reads = FIELD_READS[key]?.(args, this.settings) ?? 0;
    const writes = parent === this.schema.getMutationType() ? (MUTATION_WRITES[name]?.(args) ?? UNKNOWN_MUTATION_WRITES) : 0;
    const named = getNamedType(definition.type);
    if (!node.selectionSet || !isCompositeType(named)) return { reads, overhead: 0, writes };
    const below = this.selection(nodes, named, named.name.endsWith('Connection') ? pageSize(args) : 1);
    const times = LIST_ARG_SIZES[key]?.(args) ?? this.repeats(key, name, parent, definition.type, page);
    return { reads: reads + times * below.reads, overhead: 1 + times * below.overhead, writes: writes + times * below.writes };
  }

  /** The cost below a merged field on `type`: whichever concrete type comes back, the most expensive one. */
  private selection(nodes: readonly FieldNode[], type: GraphQLCompositeType, page: number): Tally {
    if (isAbstractType(type)) {
      return this.schema
        .getPossibleTypes(type)
        .map((concrete) => this.selection(nodes, concrete, page))
        .reduce(max, NOTHING);
    }
    let known = this.below.get(nodes[0]!);
    if (!known) this.below.set(nodes[0]!, (known = []));
    const hit = known.find((entry) => entry.type === type && entry.page === page && sameNodes(entry.nodes, nodes));
    // In progress: a fragment cycle, which validation refuses before any estimate.
    if (hit) return hit.tally ?? NOTHING;
    const entry: (typeof known)[number] = { nodes, type, page };
    known.push(entry);
    entry.tally = this.fields(subfieldsOf(this.schema, this.fragments, this.variables, type, nodes), type, page);
    return entry.tally;
  }

  /** How many times a field's selection runs: list sizes, `first` for a connection's lists. */
  private repeats(key: string, name: string, parent: GraphQLObjectType, type: GraphQLType, page: number): number {
    if (!isList(type)) return 1;
    if (parent.name.endsWith('Connection') && CONNECTION_LISTS.has(name)) return page;
    return LIST_SIZES[key] ?? FIRST_MAX;
  }
}

function isList(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

function add(total: Tally, part: Tally): void {
  total.reads += part.reads;
  total.overhead += part.overhead;
  total.writes += part.writes;
}

function max(a: Tally, b: Tally): Tally {
  return { reads: Math.max(a.reads, b.reads), overhead: Math.max(a.overhead, b.overhead), writes: Math.max(a.writes, b.writes) };
}
