/**
 * Limits on expressions, checked before dynalite parses them (engine.ts calls this first).
 *
 * Size: Amazon refuses any expression longer than 4 KB (4,096 bytes of UTF-8) with a
 * ValidationException "Invalid <Member>: Expression size has exceeded the maximum allowed size".
 * Nesting has no limit of its own, as on Amazon: the parsers take time linear in the expression's
 * length (packrat-parsers.ts), so 4 KB bounds a parse's cost. What bounds nesting is the count of
 * operators and functions, 300, checked on the parse (request-checks.ts).
 *
 * Covered: the expression members of single-item requests, Query, Scan, BatchGetItem's per-table
 * ProjectionExpression, and every TransactWriteItems / TransactGetItems action.
 */
import { validationException } from './errors';

/** Amazon's limit on any one expression string, in UTF-8 bytes. */
export const MAX_EXPRESSION_BYTES = 4096;

const EXPRESSION_MEMBERS = [
  'KeyConditionExpression',
  'ConditionExpression',
  'FilterExpression',
  'ProjectionExpression',
  'UpdateExpression',
] as const;

const TRANSACT_ACTION_KINDS = ['ConditionCheck', 'Put', 'Delete', 'Update', 'Get'];

/** Throws a ValidationException for the first expression of the request over a limit. */
export function rejectOversizedExpressions(operation: string, body: object): void {
  for (const request of itemRequestsOf(operation, body)) {
    for (const member of EXPRESSION_MEMBERS) {
      const expression = request[member];
      if (typeof expression === 'string') checkExpression(member, expression);
    }
  }
}

function checkExpression(member: string, expression: string): void {
  if (Buffer.byteLength(expression, 'utf8') > MAX_EXPRESSION_BYTES) {
    throw validationException(
      `Invalid ${member}: Expression size has exceeded the maximum allowed size; expression size: ${Buffer.byteLength(expression, 'utf8')}`,
    );
  }
}

/** The objects of a request that may carry expression members (the request itself, or its actions). */
function itemRequestsOf(operation: string, body: object): Record<string, unknown>[] {
  const request = body as Record<string, unknown>;
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const items = Array.isArray(request.TransactItems) ? (request.TransactItems as unknown[]) : [];
    return items.flatMap((item) =>
      isObject(item) ? TRANSACT_ACTION_KINDS.map((kind) => item[kind]).filter((action) => isObject(action)) : [],
    );
  }
  if (operation === 'BatchGetItem' && isObject(request.RequestItems)) {
    return Object.values(request.RequestItems).filter((tableRequest) => isObject(tableRequest));
  }
  return [request];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
