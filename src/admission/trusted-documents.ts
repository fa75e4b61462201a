/**
 * The trusted-documents manifest (GraphQL Code Generator's persisted-documents.json): read and
 * validated at start-up, without the admission plugin (src/admission/documents.ts) that enforces it.
 */
import { readFileSync } from 'node:fs';

/** Document text by hash (the manifest's keys, as given). */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** Reads a persisted-documents manifest; throws a clear error at start-up when it is unusable. */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`TRUSTED_DOCUMENTS: cannot read ${path} as JSON: ${(error as Error).message}`);
  }
  return trustedDocuments(parsed, `TRUSTED_DOCUMENTS ${path}`);
}

/** Validates a manifest object: hash → non-empty document text, at least one. */
export function trustedDocuments(manifest: unknown, source = 'trusted documents'): TrustedDocuments {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new Error(`${source}: expected an object of hash → document text (GraphQL Code Generator's persisted-documents.json)`);
  }
  const documents = new Map<string, string>();
  for (const [hash, text] of Object.entries(manifest)) {
    if (typeof text !== 'string' || text.trim() === '') throw new Error(`${source}: the document of ${hash} is not GraphQL text`);
    documents.set(withoutPrefix(hash), text);
  }
  if (documents.size === 0) throw new Error(`${source}: the manifest holds no documents`);
  return documents;
}

/** A manifest key or a client's hash without its `sha256:` prefix. */
export function withoutPrefix(id: string): string {
  return id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
}
