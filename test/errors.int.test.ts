import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponse } from '@single-table/engine';
import { startStack, type Stack } from './support/stack';
import { expectError } from './support/graphql';
import { newId } from '../src/model';

describe('internal errors in production', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ production: true });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('reach the client as a generic INTERNAL_SERVER_ERROR with a request id, never an engine message', async () => {
    // Not a transient fault (those are UNAVAILABLE: test/unavailable.int.test.ts): a request the engine refuses, a bug of ours.
    const stop = stack.engine.faults.inject('*', () => errorResponse('ValidationException', 'leveldb exploded at 127.0.0.1:1234'));
    try {
      const response = await stack.gql(`query($id: ID!) { customer(id: $id) { name } }`, { id: newId() });
      expectError(response, 'INTERNAL_SERVER_ERROR');
      expect(response.errors![0]!.message).toBe('Internal server error');
      expect(response.errors![0]!.extensions!.requestId).toEqual(response.headers.get('x-request-id'));
      expect(JSON.stringify(response)).not.toMatch(/leveldb|127\.0\.0\.1|ValidationException|stacktrace|Dynamo/i);
    } finally {
      stop();
    }
  });

  it('keep domain errors as they are: code and message', async () => {
    const response = await stack.gql(`mutation { updateOrderStatus(id: "${newId()}", status: PAID) { id } }`);
    expectError(response, 'NOT_FOUND');
    expect(response.errors![0]!.message).toMatch(/^no order with id /);
  });
});

describe('internal errors in development', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ production: false });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('carry INTERNAL_SERVER_ERROR and the request id, with details for the developer', async () => {
    const stop = stack.engine.faults.inject('*', () => errorResponse('ValidationException', 'engine broke'));
    try {
      const response = await stack.gql(`query($id: ID!) { customer(id: $id) { name } }`, { id: newId() });
      expectError(response, 'INTERNAL_SERVER_ERROR');
      expect(response.errors![0]!.extensions!.requestId).toBeTruthy();
      expect(response.errors![0]!.message).toMatch(/engine broke/);
      // No stack trace unless asked (DEBUG_ERRORS=1): the log line has it.
      expect(response.errors![0]!.extensions!.stacktrace).toBeUndefined();
    } finally {
      stop();
    }
  });

  it('carry their stack trace with DEBUG_ERRORS=1', async () => {
    const debugging = await startStack({ production: false, debugErrors: true });
    const stop = debugging.engine.faults.inject('*', () => errorResponse('ValidationException', 'engine broke'));
    try {
      const response = await debugging.gql(`query($id: ID!) { customer(id: $id) { name } }`, { id: newId() });
      expectError(response, 'INTERNAL_SERVER_ERROR');
      expect(response.errors![0]!.extensions!.stacktrace).toEqual(expect.arrayContaining([expect.stringMatching(/engine broke/)]));
    } finally {
      stop();
      await debugging.close();
    }
  });
});
