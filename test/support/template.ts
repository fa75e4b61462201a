/**
 * template.yaml parsed as CloudFormation reads it: the short-form intrinsics (`!Ref X`,
 * `!GetAtt A.B`, `!Sub '…'`) in their long form. Pure: nothing is deployed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMap, isSeq, parse, type Tags } from 'yaml';

export const root = fileURLToPath(new URL('../..', import.meta.url));

const INTRINSICS = [
  'Ref',
  'Condition',
  'GetAtt',
  'Sub',
  'Join',
  'If',
  'Equals',
  'Not',
  'And',
  'Or',
  'Select',
  'Split',
  'FindInMap',
  'GetAZs',
  'ImportValue',
  'Base64',
  'Cidr',
];
const longName = (name: string) => (name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`);
const cloudFormationTags: Tags = INTRINSICS.flatMap((name) => [
  {
    tag: `!${name}`,
    resolve: (value: string) => ({
      [longName(name)]: name === 'GetAtt' ? [value.slice(0, value.indexOf('.')), value.slice(value.indexOf('.') + 1)] : value,
    }),
  },
  {
    tag: `!${name}`,
    collection: 'seq' as const,
    resolve: (value: unknown) => ({ [longName(name)]: isSeq(value) ? value.toJSON() : value }),
  },
  {
    tag: `!${name}`,
    collection: 'map' as const,
    resolve: (value: unknown) => ({ [longName(name)]: isMap(value) ? value.toJSON() : value }),
  },
]);

export interface Resource {
  Type: string;
  Properties: Record<string, any>;
  Metadata?: Record<string, any>;
  Condition?: string;
}
export interface Template {
  Parameters: Record<string, { Type: string; Default?: unknown; MinValue?: number; AllowedValues?: string[] }>;
  Conditions: Record<string, unknown>;
  Rules: Record<string, any>;
  Resources: Record<string, Resource>;
  Outputs: Record<string, any>;
}

/** The deployed template (the repository's template.yaml). */
export const template = parse(readFileSync(`${root}/template.yaml`, 'utf8'), { customTags: cloudFormationTags }) as Template;
