import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, reachableFrom, sourceFiles } from '../harness/import-graph.js';

/**
 * src/ is the product: every file of it runs in some envdata process. Code that only scripts,
 * benchmarks and tests run (the generators of docs/, .env.example and the schema snapshot) lives
 * in tools/ (or beside the tests), behind the wall of eslint.walls.js.
 */
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as {
  bin?: string | Record<string, string>;
  main?: string;
  exports?: unknown;
};

/** Every path string of package.json's `exports`, however nested. */
function exportPaths(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports && typeof exports === 'object') return Object.values(exports).flatMap(exportPaths);
  return [];
}

/**
 * What an installed envdata runs first: package.json's `bin`, `main` and `exports` (a compiled
 * `dist/src/…` path read as its source), the migrations, which the migrator loads by folder
 * (src/warehouse/migrate-to-latest.ts), and the queue's contract (jobs/).
 */
function entryPoints(): string[] {
  const bin = typeof PACKAGE.bin === 'string' ? [PACKAGE.bin] : Object.values(PACKAGE.bin ?? {});
  const modules = [...(PACKAGE.main ? [PACKAGE.main] : []), ...exportPaths(PACKAGE.exports)].map(
    (path) => path.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '.ts'),
  );
  return [
    ...[...bin, ...modules].map((path) => resolve(path)),
    ...sourceFiles(resolve('migrations')),
    ...sourceFiles(resolve('jobs')),
  ];
}

/** Who imports each file, among the files of `folders`. */
function importers(folders: readonly string[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sourceFiles(resolve(folder)))) {
    for (const { file: imported } of importsOf(file)) {
      by.set(imported, [...(by.get(imported) ?? []), relative('.', file)]);
    }
  }
  return by;
}

describe('src/', () => {
  const product = reachableFrom(entryPoints());

  it('is read from the entry points of package.json, the migrations and jobs/', () => {
    expect(product.has(resolve('bin/envdata.js'))).toBe(true);
    expect(product.has(resolve('src/cli/main.ts'))).toBe(true);
    // Loaded with import('…') only: the later imports are followed too.
    expect(product.has(resolve('src/worker/ingest-worker.ts'))).toBe(true);
  });

  it('holds only code the product runs: no file is imported by tests, scripts or benchmarks alone', () => {
    const by = importers(['test', 'scripts', 'bench', 'tools', 'src']);
    const outside = sourceFiles(resolve('src'))
      .filter((file) => file.endsWith('.ts') && !product.has(file))
      .map((file) => `${relative('.', file)} ← ${(by.get(file) ?? ['nothing']).join(', ')}`);
    expect(outside, 'move these to tools/ (or beside the tests)').toEqual([]);
  });
});
