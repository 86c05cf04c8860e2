import { relative, sep, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerOf } from '../../eslint.walls.js';
import { importsOf, sourceFiles as allSourceFiles } from '../harness/import-graph.js';

const SRC = resolve('src');
/** The queue's contract, imported by src/ and importing src/types.ts: one graph with it. */
const JOBS = resolve('jobs');
/** The migrations, whose column meanings tools/warehouse-doc/analytics-columns.ts reads. */
const MIGRATIONS = resolve('migrations');
/** The generators of docs/ and the schema snapshot: they import src/, src/ never imports them. */
const TOOLS = resolve('tools');

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return allSourceFiles(dir).filter((file) => file.endsWith('.ts'));
}

/**
 * The files `file` imports at run time: relative `import … from`, `export … from`, `import '…'`
 * and `import('…')` (loaded later, but loaded: a cycle through it is a cycle), leaving out
 * `import type` / `export type` (erased by the compiler, so no cycle at run time).
 */
function runtimeImports(file: string): string[] {
  return importsOf(file)
    .filter((edge) => !edge.typeOnly)
    .map((edge) => edge.file);
}

/** Every file `file` imports: type-only imports and later ones (`import('…')`) included. */
function allImports(file: string): string[] {
  return importsOf(file).map((edge) => edge.file);
}

/** The part of `src/` a file belongs to: its top folder (`ledger`), or the file (`types.ts`). */
function partOf(file: string): string {
  return relative(SRC, file).split(sep)[0]!;
}

/** The import graph between parts of `src/`: an edge wherever a file imports another part's. */
function partGraph(files: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const parts = new Map<string, Set<string>>();
  for (const [file, imports] of files) {
    const from = partOf(file);
    const to = parts.get(from) ?? new Set<string>();
    for (const imported of imports) {
      const part = partOf(imported);
      if (part !== from && !part.startsWith('..')) to.add(part);
    }
    parts.set(from, to);
  }
  return new Map([...parts].map(([part, to]) => [part, [...to].sort()]));
}

/** The edges of a graph between parts of `src/` that run up the layers of eslint.walls.js. */
function upward(parts: ReadonlyMap<string, readonly string[]>): string[] {
  return [...parts].flatMap(([from, to]) =>
    to.filter((part) => layerOf(part) >= layerOf(from)).map((part) => `src/${from} → src/${part}`),
  );
}

/** The first import cycle found, as the files around it, or `undefined`. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the import graph of src/, jobs/, migrations/ and tools/', () => {
  const graph = new Map(
    [SRC, JOBS, MIGRATIONS, TOOLS].flatMap(sourceFiles).map((f) => [f, runtimeImports(f)]),
  );

  it('is read: every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((i) => !graph.has(i)).map((i) => `${relative(SRC, file)} → ${i}`),
    );
    expect(missing).toEqual([]);
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no cycle at run time', () => {
    const cycle = findCycle(graph);
    expect(cycle?.map((f) => relative(SRC, f)).join(' → ')).toBeUndefined();
  });

  it('has no cycle between files, type imports and later imports included', () => {
    const cycle = findCycle(new Map(sourceFiles(SRC).map((f) => [f, allImports(f)])));
    expect(cycle?.map((f) => relative(SRC, f)).join(' → ')).toBeUndefined();
  });

  it('has no cycle between folders, type imports and later imports included', () => {
    const parts = partGraph(new Map(sourceFiles(SRC).map((f) => [f, allImports(f)])));
    expect(parts.get('cli')?.length).toBeGreaterThan(20);
    expect(findCycle(parts)?.join(' → ')).toBeUndefined();
  });

  it('imports between folders only downward, later imports and the composition root included', () => {
    // Lint (eslint.walls.js) reads `import … from` and `export … from`; `import('…')` only here.
    const parts = partGraph(new Map(sourceFiles(SRC).map((f) => [f, allImports(f)])));
    expect(upward(parts)).toEqual([]);
    expect(parts.get('app.ts')).toContain('worker');
  });

  it('reads a later import as an edge: import(…) in code', () => {
    expect(runtimeImports(join(SRC, 'app.ts'))).toContain(join(SRC, 'worker', 'ingest-worker.ts'));
  });

  it('finds an upward import where there is one', () => {
    expect(
      upward(
        new Map([
          ['ledger', ['warehouse']],
          ['warehouse', ['cli']],
        ]),
      ),
    ).toEqual(['src/warehouse → src/cli']);
  });

  it('counts a type-only import as an edge between folders', () => {
    const ledger = join(SRC, 'ledger', 'a.ts');
    const locations = join(SRC, 'locations', 'b.ts');
    const parts = partGraph(
      new Map([
        [ledger, [locations]],
        [locations, [ledger]],
      ]),
    );
    expect(findCycle(parts)).toEqual(['ledger', 'locations', 'ledger']);
  });

  it('finds a cycle where there is one', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    expect(
      findCycle(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([a, b, a]);
  });
});
