import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every markdown page under docs/, relative to the repository. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir))) {
      const file = path.join(dir, entry);
      if (statSync(path.join(ROOT, file)).isDirectory()) walk(file);
      else if (entry.endsWith('.md')) found.push(file);
    }
  };
  walk('docs');
  return found;
}

/** The lines of a markdown text outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs, repeats numbered as GitHub does. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(readFileSync(path.join(ROOT, file), 'utf8'))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every relative link of a page (`[text](target)` and images), outside code. */
function links(file: string): string[] {
  const out: string[] = [];
  for (const line of prose(readFileSync(path.join(ROOT, file), 'utf8'))) {
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      out.push(target);
    }
  }
  return out;
}

/** What is wrong with `target` linked from `file`, or undefined. */
function problem(file: string, target: string): string | undefined {
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const linked =
    rawPath === '' ? file : path.normalize(path.join(path.dirname(file), decodeURI(rawPath)));
  if (linked.startsWith('..') || !existsSync(path.join(ROOT, linked)))
    return `${linked} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!linked.endsWith('.md'))
    return `#${anchor} points into ${linked}, which is not a markdown page`;
  if (!anchors(linked).has(decodeURIComponent(anchor)))
    return `${linked} has no heading #${anchor}`;
  return undefined;
}

describe('the links of README.md and docs/', () => {
  const all = pages();

  it('reads the README, the index and every topic page', () => {
    expect(all).toEqual(
      expect.arrayContaining(['README.md', 'docs/README.md', 'docs/commands.md']),
    );
  });

  it.each(all)('every relative link of %s reaches a file, and its #anchor a heading', (file) => {
    const broken = links(file)
      .map((target) => ({ target, problem: problem(file, target) }))
      .filter((l) => l.problem !== undefined)
      .map((l) => `(${l.target}): ${l.problem}`);
    expect(broken).toEqual([]);
  });

  it('the index links every page of docs/', () => {
    const linked = new Set(
      links('docs/README.md').map((t) => path.normalize(path.join('docs', t.split('#')[0]!))),
    );
    const unlisted = all.filter(
      (f) => f.startsWith('docs/') && f !== 'docs/README.md' && !linked.has(f),
    );
    expect(unlisted, 'add these pages to docs/README.md').toEqual([]);
  });

  it('makes GitHub’s anchors', () => {
    expect(slug('A local PostgreSQL (`envdata local`)')).toBe('a-local-postgresql-envdata-local');
    expect(slug("Operator's stack: Prometheus and Grafana")).toBe(
      'operators-stack-prometheus-and-grafana',
    );
    expect(slug('`analytics.pollen_hourly`')).toBe('analyticspollen_hourly');
  });
});
