import { readFileSync } from 'node:fs';
import { buildSchema as buildSdl, findBreakingChanges, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/schema';

const served = buildSchema();

describe('the GraphQL contract', () => {
  it('serves exactly the committed schema snapshot (npm run schema:print updates it)', () => {
    const snapshot = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(`${printSchema(served)}\n`).toBe(snapshot);
  });

  it('has no breaking change against the contract of the brief', () => {
    const brief = buildSdl(readFileSync(new URL('./brief-contract.graphql', import.meta.url), 'utf8'));
    expect(findBreakingChanges(brief, served)).toEqual([]);
  });

  it('would notice a breaking change (the check is not vacuous)', () => {
    const brief = buildSdl(readFileSync(new URL('./brief-contract.graphql', import.meta.url), 'utf8'));
    const broken = buildSdl(printSchema(served).replace('totalCents: Int!', 'totalCents: String!'));
    expect(findBreakingChanges(brief, broken).map((change) => change.description)).toEqual([
      'Order.totalCents changed type from Int! to String!.',
    ]);
  });
});
