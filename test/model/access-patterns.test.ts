import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessPatterns, entities } from '../../src/model';
import { renderAccessPatterns } from '../../src/ops/access-patterns';

describe('the access-pattern table', () => {
  const document = renderAccessPatterns();

  it('is the committed docs/access-patterns.md (npm run access-patterns regenerates it)', () => {
    expect(readFileSync(new URL('../../docs/access-patterns.md', import.meta.url), 'utf8')).toBe(document);
  });

  it('lists every declared entity with its key layout and every named access pattern', () => {
    expect(entities().length).toBeGreaterThanOrEqual(7);
    for (const entity of entities()) expect(document).toContain(`| ${entity.name} | \`${entity.type}\` | \`${entity.keys.PK}\``);
    const names = accessPatterns().map((pattern) => pattern.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(document).toContain(`| \`${name}\` |`);
  });
});
