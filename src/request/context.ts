import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { Table } from '../dynamo/table';
import { Meter } from '../dynamo/meter';
import { createLoaders, type Loaders } from '../loaders';
import { AuthenticationFailed, IdentityProviderUnavailable, tokenExpiry, type Authenticate, type Principal } from '../auth';
import { ErrorCode, HTTP_STATUS, UNAVAILABLE_MESSAGES } from '../model/errors';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import type { OperationEstimate } from './estimate';
import { EVENTUAL_READS, type ConsistencyRequest, type Reads, type SessionConsistency } from './consistency';

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
  /** How the exact screens read: eventually, or strongly after the principal's own write (src/request/consistency.ts). */
  reads: Reads;
  /** The operation's estimate (src/admission/cost.ts), once the admission pipeline (src/admission/pipeline.ts) has computed it. */
  cost?: OperationEstimate | undefined;
}

export interface ExplainPolicy {
  production: boolean;
  /** Honour `x-explain: 1` in production (for staff only). */
  explainInProduction?: boolean | undefined;
}

export function createContext(
  baseTable: Table,
  options: { principal: Principal; clientAddress?: string; explain: boolean; requestId?: string | undefined; reads?: Reads },
): Context {
  const reads = options.reads ?? EVENTUAL_READS;
  // Records (one per request, with the keys of every item it returned) feed only the explain plan: kept
  // when the response carries it; the totals of the log line and the budgets are counted either way.
  const meter = new Meter({ records: options.explain });
  const table = baseTable.withMeter(meter);
  return {
    requestId: options.requestId ?? randomUUID(),
    principal: options.principal,
    clientAddress: options.clientAddress ?? 'unknown',
    table,
    meter,
    loaders: createLoaders(table, { strong: reads.strong }),
    explain: options.explain,
    reads,
  };
}

/**
 * The context of one HTTP request (server.ts and lambda.ts alike): authenticates its bearer token
 * and decides whether it gets the plan. A token that does not verify refuses the whole request:
 * HTTP 401, `UNAUTHENTICATED`, and a `WWW-Authenticate` challenge; a token that cannot be checked
 * because the identity provider's key set cannot be fetched is HTTP 503, `UNAVAILABLE`. With a
 * `session`, the request's consistency headers decide how it reads (src/request/consistency.ts): a
 * malformed one is HTTP 400, `BAD_REQUEST`, before any read; without one it reads eventually.
 */
export async function requestContext(
  baseTable: Table,
  authenticate: Authenticate,
  policy: ExplainPolicy,
  request: {
    authorization: string | undefined;
    explainHeader: string | undefined;
    requestId: string;
    clientAddress: string;
  } & ConsistencyRequest,
  session?: SessionConsistency,
): Promise<Context> {
  let principal: Principal;
  try {
    principal = await authenticate(request.authorization);
  } catch (error) {
    if (error instanceof IdentityProviderUnavailable) throw identityProviderUnavailable(error, request.requestId);
    if (!(error instanceof AuthenticationFailed)) throw error;
    throw unauthenticated(error.message, 'invalid_token');
  }
  const reads = session ? session.reads(principal, request) : EVENTUAL_READS;
  if ('refused' in reads) throw badRequest(reads.refused);
  return createContext(baseTable, {
    principal,
    clientAddress: request.clientAddress,
    explain: explainWanted(policy, request.explainHeader, principal),
    requestId: request.requestId,
    reads,
  });
}

/** The request-level refusal of a malformed request header: HTTP 400, `BAD_REQUEST`. */
function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: {
      code: ApolloServerErrorCode.BAD_REQUEST,
      // Like `unauthenticated`, this leaves before the plugins' willSendResponse.
      http: { status: 400, headers: new Map([['cache-control', 'no-store']]) },
    },
  });
}

/**
 * How long a verified token is taken as verified without checking its signature again, at most
 * (ms). With the key set's 30 s cache (src/auth/key-set.ts) a key withdrawn from the JWKS stops
 * verifying within 30 + 30 s: the minute the README promises.
 */
export const VERIFIED_TOKEN_TTL_MS = 30_000;
const VERIFIED_TOKENS_MAX = 4_096;

/**
 * `authenticate`, remembering the principal of each token that verified (keyed by the exact
 * Authorization header) until the earlier of its `exp` and `VERIFIED_TOKEN_TTL_MS`, so a client's
 * repeated requests do not pay the signature check (ECDSA/RSA, the largest cost of a small
 * operation) each time. Only successes are kept: a header that fails is verified again every time,
 * a token without a numeric `exp` is never kept, and an entry never outlives `exp` (`jwtVerify`
 * accepts up to `exp` + clock tolerance, so this is the stricter of the two). A key withdrawn from
 * the issuer's JWKS stops a token within the TTL plus the key set's cache (30 + 30 s). Bounded: at
 * most `VERIFIED_TOKENS_MAX` entries, the oldest dropped first.
 */
export function rememberVerified(authenticate: Authenticate, now: () => number = Date.now): Authenticate {
  const verified = new Map<string, { principal: Principal; until: number }>();
  return async (authorization) => {
    if (authorization === undefined) return authenticate(authorization);
    const known = verified.get(authorization);
    if (known) {
      if (now() < known.until) return known.principal;
      verified.delete(authorization);
    }
    const principal = await authenticate(authorization);
    const exp = principal.kind === 'anonymous' ? undefined : tokenExpiry(authorization);
    if (exp !== undefined) {
      const until = Math.min(now() + VERIFIED_TOKEN_TTL_MS, exp * 1000);
      if (until > now()) {
        if (verified.size >= VERIFIED_TOKENS_MAX) verified.delete(verified.keys().next().value as string);
        verified.set(authorization, { principal, until });
      }
    }
    return principal;
  };
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

/**
 * The request-level answer when the identity provider's key set cannot be fetched: HTTP 503,
 * `UNAVAILABLE` (reason `identity-provider`), `Retry-After` until the next fetch may be tried, and
 * a generic message (the fetch error stays the original, for the log line: src/http/plugins.ts).
 */
export function identityProviderUnavailable(error: IdentityProviderUnavailable, requestId: string): GraphQLError {
  const retryAfterSeconds = error.retryAfterSeconds;
  return new GraphQLError(UNAVAILABLE_MESSAGES['identity-provider'], {
    originalError: error,
    extensions: {
      code: ErrorCode.UNAVAILABLE,
      retryable: true,
      retryAfterSeconds,
      reason: 'identity-provider',
      requestId,
      // Like `unauthenticated`, this leaves before the plugins' willSendResponse.
      http: {
        status: HTTP_STATUS.UNAVAILABLE,
        headers: new Map([
          ['retry-after', String(retryAfterSeconds)],
          ['cache-control', 'no-store'],
        ]),
      },
    },
  });
}
