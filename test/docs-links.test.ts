/**
 * The README is the front door and docs/ holds the rest (issue 20): every relative link in
 * README.md, docs/*.md and the packages' READMEs must name a file that exists, and a link with an anchor
 * (`page.md#section`, or `#section` on the same page) a heading that page has, spelt as GitHub
 * spells heading anchors. And the README stays a front door: at most 300 lines.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pages = [
  'README.md',
  'packages/bench/README.md',
  'packages/engine/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, line by line (links and headings in code are not links). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** A heading's anchor as GitHub makes it: the rendered text lower-cased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, repeated ones numbered as GitHub numbers them (-1, -2, …). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(readFileSync(join(root, file), 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Every link and image target of a page's prose (a link's text may wrap a line), inline code spans left out. */
function links(file: string): string[] {
  const text = prose(readFileSync(join(root, file), 'utf8'))
    .join('\n')
    .replace(/`[^`]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

describe('the documentation links', () => {
  it('finds the pages and their links', () => {
    expect(pages).toContain('docs/architecture.md');
    expect(pages).toContain('docs/access-patterns.md');
    expect(links('README.md').filter((target) => target.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(slug('Events: the outbox relay and `Customer.stats`')).toBe('events-the-outbox-relay-and-customerstats');
    expect(slug('Live updates (subscriptions)')).toBe('live-updates-subscriptions');
    expect(links('docs/development.md')).toContain('security.md#identity-and-access'); // its text wraps a line
  });

  it.each(pages)('%s: every relative link resolves to a file, and every anchor to a heading', (page) => {
    const broken: string[] = [];
    for (const target of links(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const file = path === '' ? page : relative(root, join(root, dirname(page), decodeURIComponent(path)));
      if (!existsSync(join(root, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it('keeps README.md a front door: at most 300 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
  });
});
