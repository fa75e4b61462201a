import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
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

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: typeDefs(), resolvers: withAccess(resolvers) as never });
}
