import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The wire (`src/warehouse/wire/`) has one door, its `index.ts`: code outside the folder imports
 * nothing else of it (docs/architecture.md, "Rows on the wire").
 */
const ROOTS = ['src', 'jobs', 'test', 'bench', 'scripts', 'tools'];
const WIRE = resolve('src/warehouse/wire');
const IMPORT = /\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = await Promise.all(
    entries.map(async (e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
      return /\.(ts|js)$/.test(e.name) ? [path] : [];
    }),
  );
  return files.flat();
}

/** Every import of a file outside the wire that reaches into it other than by its door. */
async function sideDoors(): Promise<string[]> {
  const found: string[] = [];
  for (const file of (await Promise.all(ROOTS.map((r) => sourceFiles(r)))).flat()) {
    if (resolve(file).startsWith(`${WIRE}/`)) continue;
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = resolve(file, '..', match[1] ?? match[2]!);
      if (target.startsWith(`${WIRE}/`) && relative(WIRE, target) !== 'index.js') {
        found.push(`${file} imports ${relative('.', target)}`);
      }
    }
  }
  return found;
}

describe('the wire', () => {
  it('is imported through src/warehouse/wire/index.ts only', async () => {
    expect(await sideDoors()).toEqual([]);
  });
});
