import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
/** The queue's contract, imported by src/ and importing src/types.ts: one graph with it. */
const JOBS = resolve('jobs');
/** The migrations, whose column meanings src/warehouse/analytics-columns.ts reads. */
const MIGRATIONS = resolve('migrations');

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative specifiers of `import … from`, `export … from` and `import '…'`, each statement whole. */
function importStatements(file: string): { statement: string; specifier: string }[] {
  const text = readFileSync(file, 'utf8');
  const statements =
    text.match(/^(?:(?:import|export)\s[^;]*?from\s+|import\s+)'(\.[^']+)';/gms) ?? [];
  return statements.map((statement) => ({
    statement,
    specifier: /'(\.[^']+)';$/.exec(statement)![1]!,
  }));
}

/** `specifier` as written in `file`, resolved to the `.ts` file it names. */
function resolveImport(file: string, specifier: string): string {
  return resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
}

/**
 * The files `file` imports at run time: relative `import … from` and `export … from`, leaving
 * out `import type` / `export type` (erased by the compiler, so no cycle at run time).
 */
function runtimeImports(file: string): string[] {
  return importStatements(file)
    .filter(({ statement }) => !/^(?:import|export)\s+type\s/.test(statement))
    .map(({ specifier }) => resolveImport(file, specifier));
}

/** Every file `file` imports, type-only imports (`import type`, `import { type X }`) included. */
function staticImports(file: string): string[] {
  return importStatements(file).map(({ specifier }) => resolveImport(file, specifier));
}

/** The files `file` loads later, when it runs: `import('…')`, in code or in a type. */
function lazyImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) =>
    resolveImport(file, m[1]!),
  );
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
    for (const imported of imports) if (partOf(imported) !== from) to.add(partOf(imported));
    parts.set(from, to);
  }
  return new Map([...parts].map(([part, to]) => [part, [...to].sort()]));
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

describe('the import graph of src/, jobs/ and migrations/', () => {
  const graph = new Map(
    [...sourceFiles(SRC), ...sourceFiles(JOBS), ...sourceFiles(MIGRATIONS)].map((f) => [
      f,
      runtimeImports(f),
    ]),
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

  it('has no cycle between files, type imports included', () => {
    const cycle = findCycle(new Map(sourceFiles(SRC).map((f) => [f, staticImports(f)])));
    expect(cycle?.map((f) => relative(SRC, f)).join(' → ')).toBeUndefined();
  });

  it('has no cycle between folders, type imports and later imports included', () => {
    const files = sourceFiles(SRC).map(
      (f) => [f, [...staticImports(f), ...lazyImports(f)]] as const,
    );
    const parts = partGraph(new Map(files));
    expect(parts.get('cli')?.length).toBeGreaterThan(20);
    expect(findCycle(parts)?.join(' → ')).toBeUndefined();
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
