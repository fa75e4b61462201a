/**
 * `operationName` picks the operation of a document to run (GraphQL over HTTP). When it picks none
 * (a name the document does not have, or several operations and no name), the request is refused
 * before anything runs: 400 BAD_REQUEST naming the document's operations, and no DynamoDB request.
 * (The explorer found it: GraphiQL keeps a tab's old operationName when its text is replaced, and
 * the compiled executor used to run the document's first operation, unadmitted and unpaid.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function post(body: Record<string, unknown>) {
  stack.engine.wire.reset();
  const response = await fetch(stack.server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(await tokens.staff()) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), wire: stack.engine.wire.requests() };
}

const SCREEN = 'query Screen { products(first: 1) { edges { node { sku } } } }';

describe('an operationName that selects no operation', () => {
  it('is refused, 400 BAD_REQUEST, when the document has no operation of that name; nothing is read', async () => {
    const { status, body, wire } = await post({ query: SCREEN, operationName: 'AddBeach' });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      { message: 'The document has no operation named "AddBeach" (it has "Screen")', extensions: { code: 'BAD_REQUEST' } },
    ]);
    expect(body.data).toBeUndefined();
    expect(wire).toEqual([]);
  });

  it('is refused, 400 BAD_REQUEST, when the document has several operations and none is named', async () => {
    const { status, body, wire } = await post({ query: `${SCREEN} query Other { __typename }` });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      {
        message: 'The document has several operations ("Screen", "Other"): name the one to run in operationName',
        extensions: { code: 'BAD_REQUEST' },
      },
    ]);
    expect(body.data).toBeUndefined();
    expect(wire).toEqual([]);
  });

  it('runs the operation it names', async () => {
    const { status, body, wire } = await post({ query: `${SCREEN} query Other { __typename }`, operationName: 'Screen' });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(wire.map((request) => request.operation)).toEqual(['Query']);
  });
});
