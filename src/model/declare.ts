/**
 * How the model declares itself: each entity once (its `type`, key templates for the table and
 * GSI1, the shape of every key part, its lifecycle), each access pattern on the function that runs
 * it. Key builders, parsers, `matches`, cursor shape checks, the GSI1 keys an item must carry and
 * the generated documentation are all derived from these declarations (src/model/entity/ declares
 * the entities, src/model/entities.ts lists them; access-pattern.ts declares how a pattern is
 * declared, src/model/catalog.ts lists the patterns).
 */
import type { Item, Key } from '../dynamo/table';

// ---- key templates -------------------------------------------------------------------------

/** One part of a key, named as in templates (`{customerId}`). */
export interface KeyPart {
  /** A regular expression (no anchors, no capturing groups) every value of the part matches. */
  shape: string;
  /** How the part is documented (`placedAt ISO`); the name when absent. */
  doc?: string;
  /** Turns a value into its key form (a line number into 4 digits, an email into its canonical form). */
  format?: (value: string | number) => string;
  /**
   * Where an item holds the value: the attribute of the part's name when absent. A part computed
   * from the item (the status shard) reads what it depends on beyond the item from `context`; it
   * returns undefined without it, and the key cannot be built.
   */
  from?: (item: Item, context: KeyContext | undefined) => unknown;
}

/**
 * What a key derivation needs beyond the item's own values: the table's settings (the status
 * index's shard count, `Table.writeShards`). Passed explicitly, never read from a global.
 */
export interface KeyContext {
  writeShards: number;
}

export type KeyParts = Record<string, KeyPart>;
export type KeyValues = Readonly<Record<string, unknown>>;

/** A key attribute's template, `CUSTOMER#{customerId}`: built, parsed and documented from one text. */
export interface KeyTemplate {
  text: string;
  /** As documented: `CUSTOMER#<customerId>`. */
  doc: string;
  slots: readonly string[];
  build(values: KeyValues, context?: KeyContext): string;
  /** The values of a key text of exactly this shape; undefined otherwise. */
  parse(text: unknown): Record<string, string> | undefined;
  /** The literal text before the first part (the whole text when there is none). */
  prefix: string;
  /** Whether a key text could be of this template: equal when it has no parts, else starting with `prefix`. */
  claims(text: unknown): boolean;
  /** The template of the first `count` parts and the text between them (`{placedAt}#{orderId}` of a line's GSI1SK). */
  head(count: number): KeyTemplate;
}

const SLOT = /\{([A-Za-z]+)\}/g;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function keyTemplate(text: string, parts: KeyParts): KeyTemplate {
  const pieces = text.split(SLOT); // literal, slot, literal, slot, …, literal
  const slots = pieces.filter((_, i) => i % 2 === 1);
  for (const slot of slots) if (!parts[slot]) throw new Error(`key template ${text} names an undeclared part {${slot}}`);
  if (new Set(slots).size !== slots.length) throw new Error(`key template ${text} names a part twice`);
  const pattern = new RegExp(
    `^${pieces.map((piece, i) => (i % 2 === 0 ? escape(piece) : `(?<${piece}>${parts[piece]!.shape})`)).join('')}$`,
  );
  const formatted = (slot: string, values: KeyValues, context: KeyContext | undefined) => {
    const part = parts[slot]!;
    const value = values[slot] ?? part.from?.(values, context);
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`key template ${text} needs a value for {${slot}}`);
    return part.format ? part.format(value) : String(value);
  };
  const prefix = pieces[0]!;
  return {
    text,
    doc: pieces.map((piece, i) => (i % 2 === 0 ? piece : `<${parts[piece]!.doc ?? piece}>`)).join(''),
    slots,
    prefix,
    build: (values, context) => pieces.map((piece, i) => (i % 2 === 0 ? piece : formatted(piece, values, context))).join(''),
    parse: (value) => {
      if (typeof value !== 'string') return undefined;
      const groups = pattern.exec(value)?.groups;
      return groups ? { ...groups } : slots.length === 0 && value === text ? {} : undefined;
    },
    claims: (value) => typeof value === 'string' && (slots.length === 0 ? value === text : value.startsWith(prefix)),
    head: (count) =>
      keyTemplate(
        pieces
          .slice(0, 2 * count)
          .map((piece, i) => (i % 2 === 0 ? piece : `{${piece}}`))
          .join(''),
        parts,
      ),
  };
}

// ---- entities ------------------------------------------------------------------------------

const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK'] as const;
type KeyAttribute = (typeof KEY_ATTRIBUTES)[number];

/** How an entity's records become items and back; `toItem` starts every item with `itemKeys`. */
export interface Codec<R = unknown> {
  toItem: (...args: never[]) => Item;
  fromItem: (item: Item) => R | undefined;
}

export interface EntitySpec<T extends string = string> {
  /** The entity's name, as documented. */
  name: string;
  /** The `type` attribute its items carry. */
  type: T;
  /** The GraphQL type it surfaces as, if any. */
  graphql?: string;
  parts: KeyParts;
  table: { PK: string; SK: string };
  /**
   * GSI1 keys, when its items carry them. `required`: every item must (the doctor checks);
   * `fromItem: false` when a part is not an attribute of the item itself (a line's order position).
   */
  gsi1?: { GSI1PK: string; GSI1SK: string; required: boolean; fromItem?: boolean };
  /** Whether items carry the TTL attribute (idempotency records and outbox events must; no other entity may). */
  expires: boolean;
  /** Its codec, when its items are written whole (migration bookkeeping is written by updates). */
  codec?: Codec;
}

export interface EntityDeclaration<T extends string = string> {
  name: string;
  type: T;
  graphql?: string;
  expires: boolean;
  codec?: Codec;
  /** The key layout as documented: `CUSTOMER#<customerId>`. */
  keys: { PK: string; SK: string; GSI1PK?: string; GSI1SK?: string };
  templates: { PK: KeyTemplate; SK: KeyTemplate; GSI1PK?: KeyTemplate; GSI1SK?: KeyTemplate };
  /** Whether items of this entity must carry GSI1 keys. */
  requiresGsi1: boolean;
  /** Whether `value` is a well-formed value of the part. */
  isPart(part: string, value: unknown): boolean;
  /** The table key of the item these values name. */
  key(values: KeyValues): Key;
  /**
   * The GSI1 keys of the item these values name (an entity without GSI1 keys throws); `context`
   * for parts computed from it (the summary's shard: the table's `writeShards`).
   */
  gsi1(values: KeyValues, context?: KeyContext): { GSI1PK: string; GSI1SK: string };
  /** Every key attribute and `type`: what an item of the entity starts with (`context` as for `gsi1`). */
  itemKeys(values: KeyValues, context?: KeyContext): Item;
  /**
   * The part values of a key: its PK and SK, and any other key attribute it holds (no other
   * attribute), when each has its template's shape and shared parts agree; undefined otherwise.
   * Cursors are checked with it.
   */
  parseKey(key: Record<string, unknown>): Record<string, string> | undefined;
  /** Whether an item (or a bare key) is of this entity by its table keys alone. */
  claims(item: Item): boolean;
  /** Whether an item is of this entity: its table keys, and its `type` when it carries one. */
  matches(item: Item): boolean;
  /**
   * The GSI1 keys an item of this entity must carry, computed from its own attributes; undefined
   * when they cannot be (a malformed item). Absent when the keys depend on other items. `context`:
   * the table's settings the keys depend on (`{ writeShards }` of the table the item lives in).
   */
  gsi1Of?(item: Item, context: KeyContext): { GSI1PK: string; GSI1SK: string } | undefined;
}

export function defineEntity<const T extends string>(spec: EntitySpec<T>): EntityDeclaration<T> {
  const { parts } = spec;
  const templates: EntityDeclaration['templates'] = {
    PK: keyTemplate(spec.table.PK, parts),
    SK: keyTemplate(spec.table.SK, parts),
    ...(spec.gsi1 ? { GSI1PK: keyTemplate(spec.gsi1.GSI1PK, parts), GSI1SK: keyTemplate(spec.gsi1.GSI1SK, parts) } : {}),
  };
  const shapes = new Map(Object.entries(parts).map(([name, part]) => [name, new RegExp(`^(?:${part.shape})$`)]));
  const isPart = (part: string, value: unknown) => typeof value === 'string' && (shapes.get(part)?.test(value) ?? false);
  const gsi1 = (values: KeyValues, context?: KeyContext) => {
    if (!templates.GSI1PK || !templates.GSI1SK) throw new Error(`${spec.name} has no GSI1 keys`);
    return { GSI1PK: templates.GSI1PK.build(values, context), GSI1SK: templates.GSI1SK.build(values, context) };
  };
  const claims = (item: Item) => templates.PK.claims(item.PK) && templates.SK.claims(item.SK);
  const entity: EntityDeclaration<T> = {
    name: spec.name,
    type: spec.type,
    ...(spec.graphql ? { graphql: spec.graphql } : {}),
    ...(spec.codec ? { codec: spec.codec } : {}),
    expires: spec.expires,
    keys: Object.fromEntries(KEY_ATTRIBUTES.filter((k) => templates[k]).map((k) => [k, templates[k]!.doc])) as EntityDeclaration['keys'],
    templates,
    requiresGsi1: spec.gsi1?.required ?? false,
    isPart,
    key: (values) => ({ PK: templates.PK.build(values), SK: templates.SK.build(values) }),
    gsi1,
    itemKeys: (values, context) => ({
      PK: templates.PK.build(values, context),
      SK: templates.SK.build(values, context),
      ...(spec.gsi1 ? gsi1(values, context) : {}),
      type: spec.type,
    }),
    parseKey: (key) => {
      const attributes = Object.keys(key);
      const values: Record<string, string> = {};
      for (const attribute of attributes) {
        const template = templates[attribute as KeyAttribute];
        const parsed = template?.parse(key[attribute]);
        if (!parsed) return undefined;
        for (const [slot, value] of Object.entries(parsed)) {
          if (values[slot] !== undefined && values[slot] !== value) return undefined;
          values[slot] = value;
        }
      }
      return 'PK' in key && 'SK' in key ? values : undefined;
    },
    claims,
    matches: (item) => claims(item) && (item.type === undefined || item.type === spec.type),
  };
  if (spec.gsi1 && spec.gsi1.fromItem !== false) {
    const slots = [...new Set([...templates.GSI1PK!.slots, ...templates.GSI1SK!.slots])];
    entity.gsi1Of = (item, context) => {
      const values: Record<string, string | number> = {};
      for (const slot of slots) {
        const part = parts[slot]!;
        const value = part.from ? part.from(item, context) : item[slot];
        if (typeof value !== 'string' && typeof value !== 'number') return undefined;
        if (!isPart(slot, part.format ? part.format(value) : String(value))) return undefined;
        values[slot] = value;
      }
      return gsi1(values, context);
    };
  }
  return entity;
}

// ---- access patterns: declared in access-pattern.ts, re-exported here ------------------

export * from './access-pattern';

export function pkOf(item: Item): string {
  return typeof item.PK === 'string' ? item.PK : '';
}

export function skOf(item: Item): string {
  return typeof item.SK === 'string' ? item.SK : '';
}
