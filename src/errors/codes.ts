/**
 * The one registry of the codes a client sees in `extensions.code`, on every transport: the
 * domain's (src/model/errors.ts: what a resolver or the model refuses) and the transport's (what
 * admission, Apollo and the servers refuse before or around execution). Every file names a code
 * through `Code`, never as a string literal; Apollo's own codes are Apollo's constants, so the two
 * cannot drift apart.
 */
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { ErrorCode } from '../model/errors';

/** Codes of the request rather than of the data: parse, validation, documents, limits, the servers. */
export const TransportCode = {
  /** A bug or an unknown fault, masked in production (Apollo's code). */
  INTERNAL_SERVER_ERROR: ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
  /** The query text does not parse (Apollo's code). */
  GRAPHQL_PARSE_FAILED: ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  /** The document does not validate, or breaks a limit decided from the document: depth, cost, mutation fields (Apollo's code). */
  GRAPHQL_VALIDATION_FAILED: ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  /** A malformed request: no operation to run, a persisted-query extension misused, a body too large (Apollo's code). */
  BAD_REQUEST: ApolloServerErrorCode.BAD_REQUEST,
  /** APQ: the hash is unknown; clients resend the query text on it (Apollo's code). */
  PERSISTED_QUERY_NOT_FOUND: ApolloServerErrorCode.PERSISTED_QUERY_NOT_FOUND,
  /** Trusted documents: the manifest has no document of this hash (the code Apollo's router uses). */
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** Trusted documents: free-form query text, where only a manifest hash may be sent (the router's code). */
  PERSISTED_QUERY_ID_REQUIRED: 'PERSISTED_QUERY_ID_REQUIRED',
  /** The query text sent is not the document its hash names. */
  PERSISTED_QUERY_HASH_MISMATCH: 'PERSISTED_QUERY_HASH_MISMATCH',
  /** One subscription too many: on this socket, or held by this principal at once; completing one frees room. */
  TOO_MANY_SUBSCRIPTIONS: 'TOO_MANY_SUBSCRIPTIONS',
  /** The HTTP server is shutting down (HTTP 503, outside Apollo). */
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const;

/** Every code a client may see: the domain's and the transport's (BAD_USER_INPUT is both, Apollo's spelling). */
export const Code = { ...ErrorCode, ...TransportCode } as const;
export type Code = (typeof Code)[keyof typeof Code];
