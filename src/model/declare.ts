/**
 * Declarations the model makes about itself, read by tools (the generated access-pattern table,
 * the doctor, migrations): each entity's key layout and each named access pattern. Declared once,
 * next to the code that writes and reads the entity.
 */
import type { Item } from '../dynamo/table';

export interface EntityDeclaration {
  /** The entity's name, and the `type` attribute its items carry. */
  name: string;
  type: string;
  /** The key layout, as documentation: `CUSTOMER#<customerId>`. */
  keys: { PK: string; SK: string; GSI1PK?: string; GSI1SK?: string };
  /** Whether an item is of this entity, by its keys alone. */
  matches(item: Item): boolean;
  /** Whether items of this entity must carry GSI1 keys. */
  requiresGsi1: boolean;
  /**
   * The GSI1 keys an item of this entity must carry, computed from its own attributes; undefined
   * when they cannot be (a malformed item). Absent when the keys depend on other items.
   */
  gsi1Of?(item: Item): { GSI1PK: string; GSI1SK: string } | undefined;
  /** Whether items of this entity may carry the TTL attribute (only idempotency records). */
  expires: boolean;
  /** The GraphQL type it surfaces as, if any. */
  graphql?: string;
}

export interface AccessPattern {
  /** The pattern's name, as called in code. */
  name: string;
  /** The entity it reads (its collection head, for collection reads). */
  entity: string;
  /** GraphQL fields that use it. */
  graphql: string[];
  index: 'table' | 'GSI1';
  operation: 'Query' | 'GetItem' | 'BatchGetItem';
  keyCondition: string;
  order: 'newest first' | 'by sort key' | '—';
  /** What bounds the read. */
  bound: string;
}

const declaredEntities: EntityDeclaration[] = [];
const declaredPatterns: AccessPattern[] = [];

/** Declares an entity; it joins `declaredEntities()` (in declaration order). */
export function declareEntity(entity: EntityDeclaration): EntityDeclaration {
  declaredEntities.push(entity);
  return entity;
}

/** Declares access patterns; they join `declaredPatterns()`. */
export function declarePatterns(...patterns: AccessPattern[]): AccessPattern[] {
  declaredPatterns.push(...patterns);
  return patterns;
}

/** Every entity declared by the modules loaded so far (`catalog.ts` loads them all). */
export function declaredEntitiesSoFar(): readonly EntityDeclaration[] {
  return declaredEntities;
}

export function declaredPatternsSoFar(): readonly AccessPattern[] {
  return declaredPatterns;
}

/** The entity an item belongs to, by its keys; undefined for an item no entity claims. */
export function entityOf(item: Item): EntityDeclaration | undefined {
  return declaredEntities.find((entity) => entity.matches(item));
}

export function pkOf(item: Item): string {
  return typeof item.PK === 'string' ? item.PK : '';
}

export function skOf(item: Item): string {
  return typeof item.SK === 'string' ? item.SK : '';
}
