/**
 * Persisted queries and trusted documents.
 *
 * **Trusted documents** (`TRUSTED_DOCUMENTS=<manifest.json>`): the manifest is GraphQL Code
 * Generator's client-preset `persisted-documents.json`, an object of hash → document text. In
 * production the server then runs only those documents, named by hash: `extensions.persistedQuery`
 * `{ version: 1, sha256Hash }` (Apollo Client's persisted-query link) or a top-level `documentId`
 * (`sha256:` prefix allowed), without query text. Anything else is HTTP 400:
 * `PERSISTED_QUERY_NOT_IN_LIST` for a hash the manifest lacks, `PERSISTED_QUERY_ID_REQUIRED` for
 * free-form query text (the codes Apollo's router uses for the same refusals). In development the
 * manifest's hashes resolve too, and free-form queries still run.
 *
 * **Automatic persisted queries** (Apollo's APQ, on when no manifest applies): the extension is
 * checked before Apollo sees it, so every malformed use is a clear HTTP 400 instead of Apollo's
 * 400 with an `INTERNAL_SERVER_ERROR` code: a version other than 1 or a hash that is not 64
 * hexadecimal digits is `BAD_REQUEST`, a hash that is not the SHA-256 of the query text sent with
 * it is `PERSISTED_QUERY_HASH_MISMATCH`. An unknown hash without query text keeps APQ's message and
 * code (`PersistedQueryNotFound`, `PERSISTED_QUERY_NOT_FOUND`: clients resend the text on it) but
 * is answered 400 instead of Apollo's 200.
 *
 * How: `resolveDocument` is the first step of the admission pipeline (src/admission/pipeline.ts),
 * for HTTP (src/http/admission.ts: before Apollo reads `extensions.persistedQuery`) and WebSocket alike.
 */
import { createHash } from 'node:crypto';
import type { GraphQLRequest } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import { Code } from '../errors/codes';
import { refusal } from '../errors/refusal';
import { withoutPrefix, type TrustedDocuments } from './trusted-documents';

export { loadTrustedDocuments, trustedDocuments, withoutPrefix, type TrustedDocuments } from './trusted-documents';

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * Resolves the document of a request, in place: the manifest's text for a known hash (and the
 * extension dropped). Returns the refusal when the request may not run.
 */
export function resolveDocument(
  request: GraphQLRequest,
  trusted: TrustedDocuments | undefined,
  enforce: boolean,
): GraphQLError | undefined {
  const persisted = request.extensions?.persistedQuery as unknown;
  if (persisted !== undefined && persisted !== null) {
    if (typeof persisted !== 'object' || (persisted as { version?: unknown }).version !== 1) {
      return refusal(
        Code.BAD_REQUEST,
        'Unsupported persisted query: extensions.persistedQuery must be { "version": 1, "sha256Hash": "<hash>" }',
      );
    }
  }
  const hash = persisted ? (persisted as { sha256Hash?: unknown }).sha256Hash : undefined;
  const documentId = documentIdOf(request);
  const id = documentId ?? (typeof hash === 'string' ? hash : undefined);

  const text = id === undefined ? undefined : trusted?.get(withoutPrefix(id));
  if (text !== undefined) {
    if (request.query !== undefined && request.query !== text) {
      return refusal(
        Code.PERSISTED_QUERY_HASH_MISMATCH,
        'The query text sent is not the trusted document this hash names; send the hash alone',
      );
    }
    request.query = text;
    request.extensions = withoutPersistedQuery(request.extensions);
    return undefined;
  }
  if (enforce) {
    return id !== undefined
      ? refusal(
          Code.PERSISTED_QUERY_NOT_IN_LIST,
          'No trusted document has this hash: this server runs only the operations of its trusted-documents manifest',
        )
      : refusal(
          Code.PERSISTED_QUERY_ID_REQUIRED,
          'This server runs only trusted documents: send the hash of a document of its manifest (extensions.persistedQuery { version: 1, sha256Hash } or documentId), without query text',
        );
  }
  if (persisted) {
    if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
      return refusal(
        Code.BAD_REQUEST,
        'extensions.persistedQuery.sha256Hash must be the SHA-256 of the query text, as 64 hexadecimal digits',
      );
    }
    if (request.query !== undefined && createHash('sha256').update(request.query).digest('hex') !== hash.toLowerCase()) {
      return refusal(
        Code.PERSISTED_QUERY_HASH_MISMATCH,
        'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query text sent with it',
      );
    }
    return undefined; // Apollo's APQ: registers the text, or looks the hash up
  }
  if (documentId !== undefined && request.query === undefined) {
    return refusal(Code.PERSISTED_QUERY_NOT_FOUND, 'No document has this documentId; send the query text');
  }
  return undefined;
}

/** A top-level `documentId` (POST body or GET parameter); Apollo does not pass it on itself. */
function documentIdOf(request: GraphQLRequest): string | undefined {
  const body = request.http?.body as { documentId?: unknown } | undefined;
  if (body && typeof body === 'object' && typeof body.documentId === 'string') return body.documentId;
  const search = request.http?.search;
  return search ? (new URLSearchParams(search).get('documentId') ?? undefined) : undefined;
}

/** The extensions without `persistedQuery` (a resolved or refused request must not reach Apollo's APQ). */
export function withoutPersistedQuery(extensions: GraphQLRequest['extensions']): GraphQLRequest['extensions'] {
  if (!extensions || !('persistedQuery' in extensions)) return extensions;
  const { persistedQuery: _dropped, ...rest } = extensions;
  return rest;
}
