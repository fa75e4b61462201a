/**
 * Trusted documents (src/admission/documents.ts): with a persisted-documents manifest, production runs only
 * its documents, named by hash; anything else is a 400 with a code, before any DynamoDB request.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type GraphQLResponse, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { dataOf, expectError } from './support/graphql';
import { loadTrustedDocuments, trustedDocuments } from '../src/admission/documents';
import { newId } from '../src/model';

const CUSTOMER = 'query Customer($id: ID!) { customer(id: $id) { id name } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const HASH = sha256(CUSTOMER);

/** As GraphQL Code Generator's client preset writes it: hash → document text. */
function manifestFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'trusted-')), 'persisted-documents.json');
  writeFileSync(file, JSON.stringify({ [HASH]: CUSTOMER }));
  return file;
}

async function post(stack: Stack, body: Record<string, unknown>): Promise<{ response: GraphQLResponse; requests: number }> {
  stack.engine.wire.reset();
  const res = await fetch(stack.server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(await tokens.staff()) },
    body: JSON.stringify(body),
  });
  const response = { status: res.status, headers: res.headers, ...((await res.json()) as object) };
  return { response, requests: stack.engine.wire.requests().length };
}

describe('trusted documents in production', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ production: true, trustedDocuments: loadTrustedDocuments(manifestFile()) });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('runs a document of the manifest by its hash, or by documentId', async () => {
    const id = newId();
    const byHash = await post(stack, {
      operationName: 'Customer',
      variables: { id },
      extensions: { persistedQuery: { version: 1, sha256Hash: HASH } },
    });
    expect(dataOf(byHash.response)).toEqual({ customer: null });
    expect(byHash.requests).toBe(1);
    for (const documentId of [HASH, `sha256:${HASH}`]) {
      expect(dataOf((await post(stack, { documentId, variables: { id } })).response)).toEqual({ customer: null });
    }
    // The same text sent with its hash is the same document.
    expect(
      dataOf(
        (await post(stack, { query: CUSTOMER, variables: { id }, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } }))
          .response,
      ),
    ).toEqual({ customer: null });
  });

  it('refuses anything else with a 400 and a code, before any request', async () => {
    const other = '{ __typename }';
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ query: CUSTOMER, variables: { id: newId() } }, 'PERSISTED_QUERY_ID_REQUIRED', /runs only trusted documents/],
      [
        { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(other) } } },
        'PERSISTED_QUERY_NOT_IN_LIST',
        /No trusted document has this hash/,
      ],
      [
        { query: other, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(other) } } },
        'PERSISTED_QUERY_NOT_IN_LIST',
        /No trusted document/,
      ],
      [{ documentId: 'sha256:0000', variables: {} }, 'PERSISTED_QUERY_NOT_IN_LIST', /No trusted document/],
      [
        { query: other, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } },
        'PERSISTED_QUERY_HASH_MISMATCH',
        /not the trusted document this hash names/,
      ],
      [{ extensions: { persistedQuery: { version: 3, sha256Hash: HASH } } }, 'BAD_REQUEST', /version": 1/],
    ];
    for (const [body, code, message] of cases) {
      const { response, requests } = await post(stack, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectError(response, code);
      expect(response.errors![0]!.message).toMatch(message);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(requests).toBe(0);
    }
  });
});

describe('trusted documents in development', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ trustedDocuments: trustedDocuments({ [HASH]: CUSTOMER }) });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('resolve their hashes, and free-form queries still run', async () => {
    expect(dataOf((await post(stack, { documentId: HASH, variables: { id: newId() } })).response)).toEqual({ customer: null });
    expect(dataOf(await stack.gql('{ __typename }'))).toEqual({ __typename: 'Query' });
  });
});

describe('the manifest', () => {
  it('is refused at start-up when it is not an object of hash → text', () => {
    expect(() => trustedDocuments([CUSTOMER])).toThrow(/expected an object of hash → document text/);
    expect(() => trustedDocuments({ [HASH]: 42 })).toThrow(/is not GraphQL text/);
    expect(() => trustedDocuments({})).toThrow(/no documents/);
    expect(() => loadTrustedDocuments(join(tmpdir(), `missing-${newId()}.json`))).toThrow(/TRUSTED_DOCUMENTS: cannot read/);
  });
});
