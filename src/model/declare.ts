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

export function declareEntity(entity: EntityDeclaration): EntityDeclaration {
  return entity;
}

export function declarePatterns(...patterns: AccessPattern[]): AccessPattern[] {
  return patterns;
}

export function pkOf(item: Item): string {
  return typeof item.PK === 'string' ? item.PK : '';
}

export function skOf(item: Item): string {
  return typeof item.SK === 'string' ? item.SK : '';
}
