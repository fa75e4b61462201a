import { expect } from 'vitest';
import type { GraphQLResponse } from './stack';

/** Asserts that a response failed with exactly one error carrying `code`, and no data for it. */
export function expectError(response: GraphQLResponse, code: string): void {
  expect(response.errors?.map((error) => error.extensions?.code)).toEqual([code]);
}

/** Asserts that a response has no errors and returns its data. */
export function dataOf<T = any>(response: GraphQLResponse<T>): T {
  expect(response.errors).toBeUndefined();
  return response.data as T;
}

export const CUSTOMER_FIELDS = 'id name email createdAt';
export const ORDER_FIELDS = 'id placedAt status totalCents lines { lineNo sku quantity unitPriceCents }';
