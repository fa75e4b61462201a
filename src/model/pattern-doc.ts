/**
 * How an access pattern is documented (docs/access-patterns.md, src/ops/access-patterns.ts), from
 * its declaration alone: the requests its builder builds from the declared `example`, shown as
 * sent (the KeyConditionExpression, ConditionExpression and attribute names verbatim), each value
 * shown as the key template it is an instance of (`CUSTOMER#<customerId>`, found by parsing it
 * with the entities' templates of the attribute it is compared with), and its bound: the built
 * Limits (or keys), as a formula of the declared `scale` argument when the bound grows with one.
 */
import type { AccessPattern, PatternRequest } from './access-pattern';
import { readsOf, requestsOf } from './access-pattern';
import { entities } from './entities';

export interface PatternDoc {
  index: string;
  operation: string;
  /** What is sent: the expressions verbatim, then their values as templates. */
  keyCondition: string;
  /** What the requests do not say (the declaration's note). */
  note?: string;
  order: string;
  bound: string;
}

type Attribute = 'PK' | 'SK' | 'GSI1PK' | 'GSI1SK';

/** The documented form of a key value compared with `attribute`: its template's, or the value itself. */
export function keyValueDoc(attribute: string | undefined, value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  for (const entity of entities()) {
    const template = entity.templates[attribute as Attribute];
    if (template && template.slots.length > 0 && template.parse(value)) return template.doc;
  }
  return value;
}

/** Which attribute each `:value` of an expression is compared with (`#name`s resolved). */
function comparedAttributes(expression: string, names: Record<string, string> = {}): Map<string, string> {
  const attributes = new Map<string, string>();
  const real = (name: string) => names[name] ?? name;
  for (const [, name, value] of expression.matchAll(/([#\w]+)\s*(?:=|<>|<=|>=|<|>)\s*(:\w+)/g)) attributes.set(value!, real(name!));
  for (const [, name, value] of expression.matchAll(/begins_with\(\s*([#\w]+)\s*,\s*(:\w+)\s*\)/g)) attributes.set(value!, real(name!));
  for (const [, name, low, high] of expression.matchAll(/([#\w]+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)/gi)) {
    attributes.set(low!, real(name!));
    attributes.set(high!, real(name!));
  }
  return attributes;
}

function valuesDoc(expression: string, values: Record<string, unknown> = {}, names?: Record<string, string>): string[] {
  const attributes = comparedAttributes(expression, names);
  return Object.entries(values).map(([name, value]) => `${name} = ${keyValueDoc(attributes.get(name), value)}`);
}

function keyDoc(key: Record<string, unknown>): string {
  return Object.entries(key)
    .map(([attribute, value]) => `${attribute} = ${keyValueDoc(attribute, value)}`)
    .join(', ');
}

/** One request as sent: its expression (or keys) verbatim, its values as templates, its options. */
export function requestDoc(request: PatternRequest): string {
  switch (request.kind) {
    case 'Query': {
      const input = request.input;
      const names = Object.entries(input.ExpressionAttributeNames ?? {}).map(([name, real]) => `${name} = ${real}`);
      const values = valuesDoc(input.KeyConditionExpression ?? '', input.ExpressionAttributeValues, input.ExpressionAttributeNames);
      const options = [
        input.ConsistentRead ? 'ConsistentRead' : '',
        input.ProjectionExpression ? `ProjectionExpression ${input.ProjectionExpression}` : '',
        input.FilterExpression ? `FilterExpression ${input.FilterExpression}` : '',
        input.ExclusiveStartKey ? 'from a cursor' : '',
      ].filter(Boolean);
      return [input.KeyConditionExpression ?? '', [...names, ...values].join(', '), ...options].filter(Boolean).join('; ');
    }
    case 'GetItem': {
      const input = request.input;
      const options = [
        input.ProjectionExpression ? `ProjectionExpression ${input.ProjectionExpression}` : '',
        input.ConsistentRead ? 'ConsistentRead' : '',
      ];
      return [keyDoc(input.Key), ...options].filter(Boolean).join('; ');
    }
    case 'BatchGetItem': {
      // Keys of one shape are one line: the template, not every instance.
      const shapes = [...new Set(request.keys.map(keyDoc))];
      return [shapes.join(' and '), request.consistent ? 'ConsistentRead' : ''].filter(Boolean).join('; ');
    }
    case 'TransactWriteItems':
      return request.actions
        .map((action) => {
          const [kind, body] = Object.entries(action)[0]! as [string, Record<string, unknown>];
          const key = (body.Key ?? body.Item) as Record<string, unknown>;
          const keyPart = keyDoc({ PK: key.PK, SK: key.SK });
          const condition = typeof body.ConditionExpression === 'string' ? body.ConditionExpression : '';
          const values = valuesDoc(condition, body.ExpressionAttributeValues as Record<string, unknown> | undefined);
          const old = body.ReturnValuesOnConditionCheckFailure
            ? `ReturnValuesOnConditionCheckFailure ${String(body.ReturnValuesOnConditionCheckFailure)}`
            : '';
          return [`${kind} ${keyPart}`, condition ? `ConditionExpression ${condition}` : '', values.join(', '), old]
            .filter(Boolean)
            .join('; ');
        })
        .join(' | ');
  }
}

/**
 * `a × name + b` when `bound` is affine in the scale argument (checked at several values), else
 * the bound at the example; `unit` names what is counted.
 */
function formula(pattern: AccessPattern): string | undefined {
  const scale = pattern.scale;
  if (!scale) return undefined;
  const at = (value: number) => pattern.bound(...scale.args(value));
  const slope = at(2) - at(1);
  const intercept = at(1) - slope;
  if (![3, 10, 50].every((value) => at(value) === slope * value + intercept)) return undefined;
  const term = slope === 0 ? '' : slope === 1 ? scale.name : `${slope} × ${scale.name}`;
  if (!term) return String(intercept);
  return intercept === 0 ? term : `${term} ${intercept > 0 ? '+' : '−'} ${Math.abs(intercept)}`;
}

function boundDoc(pattern: AccessPattern, requests: readonly PatternRequest[]): string {
  const grows = formula(pattern);
  if (pattern.several) return `≤ ${grows ?? pattern.bound(...(pattern.scale?.args(1) ?? []))} items`;
  if (requests.length > 1) {
    const kind = requests[0]!.kind === 'Query' ? 'Queries' : `${requests[0]!.kind}s`;
    return `${requests.length} ${kind} in one wave: Limit ${requests.map(readsOf).join(' + ')} = ${requests.reduce((n, r) => n + readsOf(r), 0)}`;
  }
  const request = requests[0]!;
  const count = grows ?? String(readsOf(request));
  switch (request.kind) {
    case 'Query':
      return `Limit ${count}`;
    case 'GetItem':
      return '1 item';
    case 'BatchGetItem':
      return `1 item a key: ${count}`;
    case 'TransactWriteItems':
      return `ALL_OLD items: ${count}`;
  }
}

/** The documentation of one declared pattern. */
export function documentPattern(pattern: AccessPattern): PatternDoc {
  const common = { index: pattern.index, operation: pattern.operation, order: pattern.order };
  const requests = requestsOf(pattern.request(...pattern.example));
  return {
    ...common,
    keyCondition: requests.map(requestDoc).join(' · '),
    ...(pattern.note ? { note: pattern.note } : {}),
    bound: boundDoc(pattern, requests),
  };
}
