/**
 * The UpdateExpression builder: `SET #a = :a, … REMOVE #b` from plain values, every attribute
 * name behind a placeholder (DynamoDB reserves many plain words: `name`, `type`, `status`,
 * `segment`, `next` among them). Undefined values are left out (they cannot be sent).
 */
export interface Assignments {
  /** `#a = :a` each, to go after SET (with any hand-written assignment). */
  list: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * One assignment per defined field. Placeholders are the attribute's own name (`#name = :name`),
 * or, with `indexed`, a prefix and the position (`#m0 = :m0`) for names that are not valid
 * placeholder text.
 */
export function assignments(fields: Record<string, unknown>, options: { indexed?: string } = {}): Assignments {
  const out: Assignments = { list: [], names: {}, values: {} };
  let i = 0;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const placeholder = options.indexed === undefined ? field : `${options.indexed}${i}`;
    i += 1;
    out.list.push(`#${placeholder} = :${placeholder}`);
    out.names[`#${placeholder}`] = field;
    out.values[`:${placeholder}`] = value;
  }
  return out;
}

/** `SET a, b REMOVE c`: the clauses that have something, in DynamoDB's order. */
export function updateExpression(clauses: { set?: readonly string[]; remove?: readonly string[] }): string {
  const parts: string[] = [];
  if (clauses.set && clauses.set.length > 0) parts.push(`SET ${clauses.set.join(', ')}`);
  if (clauses.remove && clauses.remove.length > 0) parts.push(`REMOVE ${clauses.remove.join(', ')}`);
  if (parts.length === 0) throw new Error('an UpdateExpression needs at least one clause');
  return parts.join(' ');
}

/** `SET` of `fields` as a complete update: the expression and its placeholders. */
export function setFields(
  fields: Record<string, unknown>,
  options: { indexed?: string } = {},
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const set = assignments(fields, options);
  return { expression: updateExpression({ set: set.list }), names: set.names, values: set.values };
}
