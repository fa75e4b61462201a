import { GraphQLScalarType, Kind } from 'graphql';

/**
 * DateTime travels as an ISO-8601 UTC string. The scalar only insists on a string: the model
 * validates and normalises the timestamp, so a bad one is a BAD_USER_INPUT error like any other
 * bad input, whether it came as a literal or a variable.
 */
export const DateTime = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description: 'An ISO-8601 UTC timestamp such as 2026-09-01T10:00:00.000Z.',
  serialize(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Date) return value.toISOString();
    throw new TypeError('DateTime cannot represent a non-string value');
  },
  parseValue(value) {
    if (typeof value !== 'string') throw new TypeError('DateTime must be a string');
    return value;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be a string');
    return ast.value;
  },
});
