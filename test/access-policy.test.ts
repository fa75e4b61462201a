/**
 * The access policy covers the whole schema: every field of every object type the schema serves
 * has a rule in src/schema/access.ts, and no rule names a field that does not exist. A new field
 * without a rule fails here (and a new root field also fails `buildSchema` at start-up).
 */
import { describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { buildSchema } from '../src/schema';
import { ACCESS, withAccess } from '../src/schema/access';

const schema = buildSchema();
const served = Object.values(schema.getTypeMap())
  .filter((type) => isObjectType(type) && !type.name.startsWith('__'))
  .flatMap((type) => Object.keys((type as any).getFields()).map((field) => `${type.name}.${field}`))
  .sort();
const ruled = Object.entries(ACCESS)
  .flatMap(([type, fields]) => Object.keys(fields).map((field) => `${type}.${field}`))
  .sort();

describe('the access policy', () => {
  it('has exactly one rule for every field the schema serves', () => {
    expect(ruled).toEqual(served);
  });

  it('gives every root field a rule of its own, never "reached"', () => {
    for (const type of ['Query', 'Mutation', 'Subscription']) {
      for (const [field, rule] of Object.entries(ACCESS[type]!)) expect({ field, who: rule.who }).not.toEqual({ field, who: 'reached' });
    }
  });

  it('refuses to build resolvers for a root field without a rule', () => {
    expect(() => withAccess({ Query: { secrets: () => 'all of them' } })).toThrow('Query.secrets has no access rule');
    expect(() => withAccess({ Subscription: { secrets: { subscribe: () => undefined } } })).toThrow(
      'Subscription.secrets has no access rule',
    );
  });

  it('guards subscriptions: their subscribe is wrapped, their resolve kept', () => {
    const resolve = () => 'event';
    const subscribe = () => undefined;
    const wrapped = withAccess({ Subscription: { myOrderEvents: { subscribe, resolve } } }) as any;
    expect(wrapped.Subscription.myOrderEvents.resolve).toBe(resolve);
    expect(wrapped.Subscription.myOrderEvents.subscribe).not.toBe(subscribe);
  });
});
