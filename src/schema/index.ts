import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { addResolversToSchema } from '@graphql-tools/schema';
import { buildASTSchema, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { resolvers } from '../resolvers';
import { withAccess } from './access';

const here = dirname(fileURLToPath(import.meta.url));

/** The SDL of `src/schema/*.graphql`, in file-name order (the same files codegen reads). */
export function typeDefs(): string[] {
  return readdirSync(here)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(join(here, file), 'utf8'));
}

/**
 * The SDL parsed (without locations) and validated, as JSON: a bundle carries it beside itself
 * (src/ops/bundle.ts writes it from the same files), so a Lambda container neither parses nor
 * validates the SDL again (8 ms of its start, `npm run bench:cold`). Throws on an invalid SDL.
 */
export const VALIDATED_SDL_FILE = 'schema.validated.json';

/** The SDL files as one text. */
const sdlText = () => typeDefs().join('\n');

export function validatedSdl(): string {
  const document = parse(sdlText(), { noLocation: true });
  buildASTSchema(document); // validates the SDL: the bundle is not made from one that fails
  return JSON.stringify(document);
}

/** The SDL as one document: the validated one beside a bundle, else parsed from the files (and validated when built). */
function sdlDocument(): { document: DocumentNode; validated: boolean } {
  const prebuilt = join(here, VALIDATED_SDL_FILE);
  if (existsSync(prebuilt)) return { document: JSON.parse(readFileSync(prebuilt, 'utf8')) as DocumentNode, validated: true };
  return { document: parse(sdlText()), validated: false };
}

/**
 * The served schema: the SDL as one document (graphql-js builds a type and its `extend type`s in
 * one pass and validates the SDL), with the resolvers attached in place by @graphql-tools (an
 * unknown type or field in them is an error). makeExecutableSchema would merge the files' type
 * definitions first and copy the whole schema to attach them: a third of a Lambda container's
 * start (`npm run bench:cold`).
 */
export function buildSchema(): GraphQLSchema {
  const { document, validated } = sdlDocument();
  const schema = buildASTSchema(document, { assumeValidSDL: validated });
  return addResolversToSchema({ schema, resolvers: withAccess(resolvers) as never, updateResolversInPlace: true });
}
