/**
 * An item collection, declared once: its partition key, its member entities in the order a
 * descending Query meets them, how many items of each one collection may hold, the GraphQL
 * fields each answers and how the unbounded member's runs are paged. Everything else is derived
 * from it and names no member: the planner's key conditions, `Limit`s and pattern names
 * (plan.ts), the splitter (`memberOf`, state.ts), the per-request memo (session.ts), the
 * look-ahead (src/resolvers/lookahead.ts) and the read cost of the fields (src/admission/cost.ts).
 * `defineCollection` refuses a declaration that contradicts itself, when the module loads:
 *
 * - every member's table PK has the collection's template (`CUSTOMER#{…}`), its one part the
 *   member's `key` part, so every member lives in the collection the planner queries;
 * - every key of a member sorts above every key of the member declared after it (the declared
 *   descending order is the order on the wire), and the `type` attributes differ;
 * - the bounded members come first and the one unbounded member (the window, read by `Limit`)
 *   last, and the bounded members' common sort-key prefix (the `head`) claims no key of the window,
 *   so "the head" is one `begins_with` range of at most the sum of the bounds;
 * - the head holds an exact member of bound 1 (the root, whose item proves the collection exists),
 *   every member has a reader (its entity's codec), and no field is answered by two members.
 *
 * Contract relied on by the ordering check: every key part of a member's SK is non-empty (every
 * part shape in src/model/entity/ requires at least one character).
 */
import type { Item, Key } from '../../dynamo/types';
import type { EntityDeclaration } from '../declare';

/** A member of a collection: its entity, the part of its PK that names the collection, its bound. */
export interface MemberSpec {
  entity: EntityDeclaration;
  /** The part of the entity's PK template that holds the collection key (`id` of the profile). */
  key: string;
  /** The most items of this member one collection holds; `'window'`: unbounded, read by `Limit`. */
  bound: number | 'window';
  /** The record an item becomes; the entity's codec (`fromItem`) by default. */
  read?: (item: Item) => unknown;
  /** The order a member of several items is answered in, and cut at its bound in; the sort key's by default. */
  order?: (a: never, b: never) => number;
  /** The fields of the collection's GraphQL type this member answers: look-ahead and cost read them here. */
  fields?: readonly string[];
}

/** A window of the unbounded member: how many items, and the key a page starts after. */
export interface WindowLike {
  first: number;
  start: Key | undefined;
}

/**
 * How windows of the unbounded member are told apart and paged. A *run* is the items from one
 * starting point downwards; windows of one run differ only in how far they reach.
 */
export interface RunSpec<W extends WindowLike = WindowLike> {
  /** Identifies a window's run. */
  key(window: W): string;
  /** The key of the run from the top of the window member (a new collection's: empty and complete). */
  top: string;
  /** Whether a window starts at the top of the window member (adjacent to the head). */
  newest(window: W): boolean;
  /** The SK prefix a window's run reads within (a month's orders: `ORDER#2026-09`). */
  prefix(window: W): string;
  /** Checks a window field's own arguments (beyond `first`) before anything reads; throws BAD_USER_INPUT. */
  check?(args: Record<string, unknown>): void;
  /** The page a window answers, from the run's records read so far, newest first. */
  page(collectionId: string, records: readonly unknown[], window: W): unknown;
}

export interface CollectionSpec<M extends string, W extends WindowLike = WindowLike> {
  name: string;
  /**
   * The partition key template, `CUSTOMER#{customerId}` (one part): the top member's table PK by
   * default, which every member must share; stated, it is checked against them.
   */
  pk?: string;
  /** The members, top first: the order of a descending Query. */
  members: { readonly [name in M]: MemberSpec };
  descending: readonly M[];
  /** The start of its planned patterns' names (`customer`: `customerScreen`, `customerHead`, …); the name's first word by default. */
  patterns?: string;
  /** The GraphQL type a collection is served as (`Customer`), whose fields the members name. */
  graphql?: string;
  /** How the window member's runs are keyed and paged; one run from its top by default. */
  runs?: RunSpec<W>;
}

export interface CollectionMember<M extends string = string> extends MemberSpec {
  name: M;
  /** The literal start of every SK of the member (`PROFILE#ADDRESS#`); the whole SK when it has no parts. */
  prefix: string;
  /** Whether the member's SK has no parts (one item a collection: `PROFILE`). */
  exact: boolean;
  read: (item: Item) => unknown;
}

export interface CollectionDeclaration<M extends string = string, W extends WindowLike = WindowLike> {
  name: string;
  /** Top first, as a descending Query meets them. */
  members: readonly CollectionMember<M>[];
  member(name: M): CollectionMember<M>;
  /** The partition key of one collection. */
  pk(id: string): string;
  /** The id a partition key names, when it is one of this collection's. */
  idOf(pk: unknown): string | undefined;
  /** The bounded members (the head), top first, and their common SK prefix: one `begins_with` range. */
  head: { members: readonly CollectionMember<M>[]; prefix: string; bound: number };
  /** The one unbounded member, read by `Limit` below the head. */
  window: CollectionMember<M>;
  /** The exact member (one item, bound 1) lowest in the head: its item proves the collection exists. */
  root: CollectionMember<M>;
  /** The summed bounds of the members above `name` (what a descending Query reads before reaching it). */
  boundAbove(name: M): number;
  /**
   * The member an item belongs to, by its `type` attribute; throws when the item names no member,
   * or when its table keys are not that member's (the SK prefix and PK are asserted, not trusted).
   */
  memberOf(item: Item): CollectionMember<M>;
  /** The start of its planned patterns' names. */
  patterns: string;
  /** The GraphQL type it is served as, and the member answering each of its fields. */
  graphql: { type: string | undefined; fields: ReadonlyMap<string, CollectionMember<M>> };
  runs: RunSpec<W>;
}

/** What an operation wants of one collection: each head member, and windows of the unbounded one. Existence is always wanted. */
export type NeedOf<H extends string, W extends WindowLike = WindowLike> = { readonly [K in H]: boolean } & { windows: W[] };
/** A need of any collection: its head members are looked up by name (`wants`). */
export interface AnyNeed {
  windows: WindowLike[];
}

/** Whether `need` wants the head member `name`. */
export function wants(need: AnyNeed, name: string): boolean {
  return (need as unknown as Record<string, unknown>)[name] === true;
}

const SLOT = /\{[A-Za-z]+\}/g;

export function defineCollection<const M extends string, W extends WindowLike = WindowLike>(
  spec: CollectionSpec<M, W>,
): CollectionDeclaration<M, W> {
  const fail = (why: string): never => {
    throw new Error(`collection ${spec.name}: ${why}`);
  };
  const pk = spec.pk ?? spec.members[spec.descending[0]!]?.entity.templates.PK.text ?? fail('it has no member');
  const pkSlots = pk.match(SLOT) ?? [];
  if (pkSlots.length !== 1) fail(`its partition key ${pk} must have exactly one part`);
  const pkShape = pk.replace(SLOT, '{}');
  const pkPrefix = pk.slice(0, pk.indexOf('{'));
  if (spec.descending.length !== Object.keys(spec.members).length || new Set(spec.descending).size !== spec.descending.length) {
    fail('its descending order must name every member once');
  }

  const members = spec.descending.map((name): CollectionMember<M> => {
    const member = spec.members[name];
    if (!member) return fail(`its descending order names ${name}, which is not a member`);
    const { PK, SK } = member.entity.templates;
    if (PK.text.replace(SLOT, '{}') !== pkShape || PK.slots.length !== 1 || PK.slots[0] !== member.key) {
      fail(`member ${name} (${member.entity.name}) has PK ${PK.text}, not the collection's ${pk} with {${member.key}}`);
    }
    if (member.bound !== 'window' && !(Number.isInteger(member.bound) && member.bound >= 1))
      fail(`member ${name} has bound ${member.bound}`);
    // A member without a reader is refused below, once the ordering checks have spoken.
    const read = (member.read ?? member.entity.codec?.fromItem)!;
    return { ...member, name, prefix: SK.prefix, exact: SK.slots.length === 0, read };
  });

  const types = new Set(members.map((m) => m.entity.type));
  if (types.size !== members.length) fail('two members share a type');
  for (let i = 1; i < members.length; i++) {
    const upper = members[i - 1]!;
    const lower = members[i]!;
    if (!sortsAbove(upper, lower))
      fail(`${upper.name} (SK ${upper.entity.templates.SK.text}) does not sort above ${lower.name} (SK ${lower.entity.templates.SK.text})`);
  }

  const windows = members.filter((m) => m.bound === 'window');
  if (windows.length !== 1 || members.at(-1) !== windows[0]) fail('exactly one member, the last, is the window');
  const window = windows[0]!;
  const headMembers = members.slice(0, -1);
  if (headMembers.length === 0) fail('it has no bounded member');
  const headPrefix = headMembers.map((m) => m.prefix).reduce(commonPrefix);
  if (headPrefix === '' || window.prefix.startsWith(headPrefix) || headPrefix.startsWith(window.prefix)) {
    fail(`its head prefix "${headPrefix}" does not set the head apart from ${window.name}`);
  }
  const unread = members.find((m) => m.read === undefined);
  if (unread) fail(`member ${unread.name} (${unread.entity.name}) has no codec to read its items with`);
  const boundOf = (m: CollectionMember<M>) => (m.bound === 'window' ? 0 : m.bound);
  const byType = new Map(members.map((m) => [m.entity.type, m]));
  const root = headMembers.findLast((m) => m.exact && m.bound === 1) ?? fail('it has no exact member of bound 1 to prove it exists');
  const fields = new Map<string, CollectionMember<M>>();
  for (const member of members)
    for (const field of member.fields ?? []) {
      if (fields.has(field)) fail(`two members answer the field ${field}`);
      fields.set(field, member);
    }
  const pkOf = (id: string) => `${pkPrefix}${id}${pk.slice(pk.indexOf('}') + 1)}`;

  return {
    name: spec.name,
    members,
    member: (name) => members.find((m) => m.name === name) ?? fail(`no member ${name}`),
    pk: pkOf,
    idOf: (pk) => {
      const parsed = members[0]!.entity.templates.PK.parse(pk);
      return parsed?.[members[0]!.key];
    },
    head: { members: headMembers, prefix: headPrefix, bound: headMembers.reduce((sum, m) => sum + boundOf(m), 0) },
    window,
    boundAbove: (name) => {
      const index = members.findIndex((m) => m.name === name);
      if (index < 0) fail(`no member ${name}`);
      return members.slice(0, index).reduce((sum, m) => sum + boundOf(m), 0);
    },
    memberOf: (item) => {
      const member = byType.get(String(item.type));
      if (!member) return fail(`item ${String(item.PK)}/${String(item.SK)} has type ${String(item.type)}, no member's`);
      if (!member.entity.claims(item)) fail(`item ${String(item.PK)}/${String(item.SK)} has type ${member.entity.type} but not its keys`);
      return member;
    },
    root,
    patterns: spec.patterns ?? spec.name.split(' ')[0]!.toLowerCase(),
    graphql: { type: spec.graphql, fields },
    runs: spec.runs ?? topRun<W>(window.prefix),
  };
}

/** One run, from the top of the window member; pages are the records themselves. */
function topRun<W extends WindowLike>(prefix: string): RunSpec<W> {
  return {
    key: (window) => String(window.start?.SK ?? ''),
    top: '',
    newest: (window) => window.start === undefined,
    prefix: () => prefix,
    page: (_id, records, window) => records.slice(0, window.first),
  };
}

/**
 * Whether every SK of `upper` sorts above every SK of `lower` (DynamoDB compares sort keys as
 * UTF-8 bytes; these prefixes are ASCII, where that is code-unit order). A member with parts has
 * keys `prefix + something non-empty`; an exact member has one key, its prefix.
 */
export function sortsAbove(upper: Pick<CollectionMember, 'prefix' | 'exact'>, lower: Pick<CollectionMember, 'prefix' | 'exact'>): boolean {
  const a = upper.prefix;
  const b = lower.prefix;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  if (a.length > b.length) return lower.exact; // upper's keys extend lower's one key
  if (a.length === b.length) return !upper.exact && lower.exact;
  return false; // upper's prefix is a start of lower's: the ranges overlap or upper sorts below
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
