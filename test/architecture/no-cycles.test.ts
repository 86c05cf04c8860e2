import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
/** The queue's contract, imported by src/ and importing src/types.ts: one graph with it. */
const JOBS = resolve('jobs');

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The files `file` imports at run time: relative `import … from` and `export … from`, leaving
 * out `import type` / `export type` (erased by the compiler, so no cycle at run time).
 */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = text.match(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)';/gms) ?? [];
  return statements
    .filter((s) => !/^(?:import|export)\s+type\s/.test(s))
    .map((s) => /'(\.[^']+)';$/.exec(s)![1]!)
    .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
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

describe('the import graph of src/ and jobs/', () => {
  const graph = new Map(
    [...sourceFiles(SRC), ...sourceFiles(JOBS)].map((f) => [f, runtimeImports(f)]),
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
