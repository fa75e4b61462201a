import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { Table } from './dynamo/table';
import { Meter } from './dynamo/meter';
import { createLoaders, type Loaders } from './loaders';
import { AuthenticationFailed, type Authenticate, type Principal } from './auth';
import { ErrorCode, HTTP_STATUS } from './model/errors';
import type { OperationEstimate } from './cost';

/**
 * What every resolver of one GraphQL operation shares: who is calling, the table handle metered
 * for this operation, and loaders whose memo lives exactly as long as the operation.
 */
export interface Context {
  requestId: string;
  principal: Principal;
  /** The caller's network address: the quota key of anonymous callers. */
  clientAddress: string;
  table: Table;
  meter: Meter;
  loaders: Loaders;
  /** Whether the response carries `extensions.dynamodb` (the request plan). */
  explain: boolean;
  /** The operation's estimate (src/cost.ts), once `admission` (src/limits.ts) has computed it. */
  cost?: OperationEstimate | undefined;
}

export interface ExplainPolicy {
  production: boolean;
  /** Honour `x-explain: 1` in production (for staff only). */
  explainInProduction?: boolean | undefined;
}

export function createContext(
  baseTable: Table,
  options: { principal: Principal; clientAddress?: string; explain: boolean; requestId?: string | undefined },
): Context {
  const meter = new Meter();
  const table = baseTable.withMeter(meter);
  return {
    requestId: options.requestId ?? randomUUID(),
    principal: options.principal,
    clientAddress: options.clientAddress ?? 'unknown',
    table,
    meter,
    loaders: createLoaders(table),
    explain: options.explain,
  };
}

/**
 * The context of one HTTP request (server.ts and lambda.ts alike): authenticates its bearer token
 * and decides whether it gets the plan. A token that does not verify refuses the whole request:
 * HTTP 401, `UNAUTHENTICATED`, and a `WWW-Authenticate` challenge.
 */
export async function requestContext(
  baseTable: Table,
  authenticate: Authenticate,
  policy: ExplainPolicy,
  request: { authorization: string | undefined; explainHeader: string | undefined; requestId: string; clientAddress: string },
): Promise<Context> {
  let principal: Principal;
  try {
    principal = await authenticate(request.authorization);
  } catch (error) {
    if (!(error instanceof AuthenticationFailed)) throw error;
    throw unauthenticated(error.message, 'invalid_token');
  }
  return createContext(baseTable, {
    principal,
    clientAddress: request.clientAddress,
    explain: explainWanted(policy, request.explainHeader, principal),
    requestId: request.requestId,
  });
}

/**
 * Whether a response carries the plan (`extensions.dynamodb`): always in development; in
 * production only when enabled, asked for with `x-explain: 1`, and the caller is staff (the plan
 * names keys and values of the table).
 */
export function explainWanted(policy: ExplainPolicy, header: string | undefined, principal: Principal): boolean {
  if (!policy.production) return true;
  return header === '1' && policy.explainInProduction === true && principal.kind === 'staff';
}

/** The request-level refusal of a caller without a valid token. */
export function unauthenticated(message: string, error?: 'invalid_token'): GraphQLError {
  const challenge = error ? `Bearer error="${error}"` : 'Bearer';
  return new GraphQLError(message, {
    extensions: {
      code: ErrorCode.UNAUTHENTICATED,
      // This refusal leaves before the plugins' willSendResponse, so it says no-store itself.
      http: {
        status: HTTP_STATUS.UNAUTHENTICATED,
        headers: new Map([
          ['www-authenticate', challenge],
          ['cache-control', 'no-store'],
        ]),
      },
    },
  });
}
