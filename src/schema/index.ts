import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { addResolversToSchema } from '@graphql-tools/schema';
import { buildASTSchema, parse, type GraphQLSchema } from 'graphql';
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
 * The served schema: the SDL as one document (graphql-js builds a type and its `extend type`s in
 * one pass and validates the SDL), with the resolvers attached in place by @graphql-tools (an
 * unknown type or field in them is an error). makeExecutableSchema would merge the files' type
 * definitions first and copy the whole schema to attach them: a third of a Lambda container's
 * start (`npm run bench:cold`).
 */
export function buildSchema(): GraphQLSchema {
  const schema = buildASTSchema(parse(typeDefs().join('\n')));
  return addResolversToSchema({ schema, resolvers: withAccess(resolvers) as never, updateResolversInPlace: true });
}
