/**
 * The memoised parsers (src/packrat-parsers.ts) answer exactly as dynalite's generated ones: the
 * same tree, the same error and the same names marked used, for conditions, key conditions, updates
 * and projections, valid and invalid; and in time linear in the nesting depth.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../src/dynalite-internals';
import { loadParser, type ParserName } from '../src/packrat-parsers';

const RESERVED = new Set(['SIZE', 'NAME', 'STATUS', 'KEY', 'VALUE', 'DATA', 'AND']);

function run(name: ParserName, memoised: boolean, expression: string, isKeyCondition = false): unknown {
  const context = {
    attrNames: { '#n': 'name', '#s': 'status', '#u': 'unused' },
    attrVals: { ':v': { N: '1' }, ':w': { N: '2' }, ':s': { S: 'x' }, ':l': { L: [{ N: '1' }] }, ':ss': { SS: ['a'] } },
    unusedAttrNames: { '#n': true, '#s': true, '#u': true },
    unusedAttrVals: { ':v': true, ':w': true, ':s': true, ':l': true, ':ss': true },
    isReserved: (word: string) => RESERVED.has(word.toUpperCase()),
    compare: db.compare,
    isKeyCondition,
  };
  try {
    const result = loadParser(name, memoised).parse(expression, { context });
    return { result, unusedNames: context.unusedAttrNames, unusedValues: context.unusedAttrVals };
  } catch (err) {
    return { error: (err as Error).name, message: (err as Error).message };
  }
}

const CONDITIONS = [
  'a = :v',
  'a <> :v AND b < :w OR NOT c >= :v',
  '(a = :v OR b = :v) AND (c = :v OR (d = :v AND e BETWEEN :v AND :w))',
  'a IN (:v, :w, :s) AND size(b) > :v',
  'attribute_exists(a.b[1].c) AND attribute_not_exists(#n) AND begins_with(#s, :s)',
  'contains(a, :s) AND attribute_type(a, :s) AND NOT (contains(b, :ss))',
  'a.b.c[0][2] = :l',
  '((a = :v))',
  'a = :v AND ((b = :v))',
  'size(a)',
  'name = :v',
  'a = #missing',
  'a = :missing',
  'unknown_function(a)',
  'attribute_exists(:v)',
  'a BETWEEN :w AND :v',
  'a = a',
  'a = :v AND',
  '(a = :v',
  'a = :v)',
  '',
  `${'a = :v AND ('.repeat(5)}a = :v${')'.repeat(5)}`,
  `${'NOT ('.repeat(4)}begins_with(a, :s)${')'.repeat(4)}`,
];
const KEY_CONDITIONS = ['PK = :s', 'PK = :s AND begins_with(SK, :s)', 'PK = :s AND SK BETWEEN :v AND :w', 'PK = :s OR SK = :s'];
const UPDATES = [
  'SET a = :v',
  'SET a = :v, b = b + :w, c = list_append(if_not_exists(c, :l), :l) REMOVE d, e[1] ADD f :v DELETE g :ss',
  'SET #n = if_not_exists(#n, :s), a.b[2].c = :v - :w',
  'REMOVE a[1] SET a[3] = :v',
  'SET a = :v SET b = :v',
  'SET a = :v, a = :w',
  'SET a.b = :v REMOVE a',
  'ADD a :s',
  'SET a = size(b)',
  'SET a = :v +',
  'SET status = :v',
  'REMOVE',
];
const PROJECTIONS = ['a', 'a, b.c, d[1].e', '#n, #s', 'a, a', 'a.b, a', 'name', 'a,', ''];

describe('the memoised parsers answer as the generated ones', () => {
  it.each(CONDITIONS)('condition %j', (expression) => {
    expect(run('conditionParser', true, expression)).toEqual(run('conditionParser', false, expression));
  });
  it.each(KEY_CONDITIONS)('key condition %j', (expression) => {
    expect(run('conditionParser', true, expression, true)).toEqual(run('conditionParser', false, expression, true));
  });
  it.each(UPDATES)('update %j', (expression) => {
    expect(run('updateParser', true, expression)).toEqual(run('updateParser', false, expression));
  });
  it.each(PROJECTIONS)('projection %j', (expression) => {
    expect(run('projectionParser', true, expression)).toEqual(run('projectionParser', false, expression));
  });
});

describe('the memoised parser is linear in nesting depth', () => {
  it('parses a condition nested 340 deep (4 KB) in one pass per rule and position', () => {
    const nested = `${'a = :v AND ('.repeat(340)}a = :v${')'.repeat(340)}`;
    expect(run('conditionParser', true, nested)).toMatchObject({ result: { expression: { type: 'and' } } });
  });
});
