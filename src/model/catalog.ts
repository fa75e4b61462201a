/**
 * Everything the model declares about itself, in one place for tools (the generated
 * access-pattern table, the doctor, migrations): every entity's key layout and every named access
 * pattern. Each entity module declares its own (declare.ts); importing them all here makes the
 * lists complete. (This is the list of declared entities; the product catalog is product.ts.)
 */
import './customer';
import './address';
import './order';
import './product';
import './status-index';
import './sku-index';
import './collection';
import './email';
import './idempotency';
import './migration';
import { declaredEntitiesSoFar, declaredPatternsSoFar, type AccessPattern, type EntityDeclaration } from './declare';

export function entities(): readonly EntityDeclaration[] {
  return declaredEntitiesSoFar();
}

export function accessPatterns(): readonly AccessPattern[] {
  return declaredPatternsSoFar();
}
