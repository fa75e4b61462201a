import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';

/**
 * The GraphQL-over-HTTP audit suite of `graphql-http`, against the real server in production mode
 * (introspection enabled, since the audits query `__type`). Every MUST holds; the SHOULD audits
 * that fail are listed here and in docs/security.md ("GraphQL over HTTP"), so a new failure shows up.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ production: true, introspectionInProduction: true });
});
afterAll(async () => {
  await stack?.close();
});

const audits = serverAudits({ url: () => stack.server.url, fetchFn: fetch });

describe('GraphQL over HTTP (graphql-http audits)', () => {
  for (const audit of audits.filter((a) => a.name.startsWith('MUST'))) {
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
    });
  }

  it('fails only the known SHOULD audits', async () => {
    const failed: string[] = [];
    for (const audit of audits.filter((a) => a.name.startsWith('SHOULD'))) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(audit.name);
    }
    expect(failed).toEqual(KNOWN_SHOULD_FAILURES);
  });
});

/**
 * Apollo Server answers parse, validation and variable-coercion failures with 400 whatever the
 * Accept header; the spec prefers 200 for `application/json` clients. No configuration changes it.
 */
const KNOWN_SHOULD_FAILURES: string[] = [
  'SHOULD use 200 status code on document parsing failure when accepting application/json',
  'SHOULD use 200 status code on document validation failure when accepting application/json',
  'SHOULD use a status code of 200 on variable coercion failure when accepting application/json',
];
