import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One relative import of a file: what it names, and how. */
export interface ImportEdge {
  /** The `.ts` (or `.js`) file it names, absolute. */
  readonly file: string;
  /** `import type …` / `export type …`: erased by the compiler, no edge at run time. */
  readonly typeOnly: boolean;
  /** `import('…')`: loaded later, when the code runs (in code or in a type). */
  readonly lazy: boolean;
}

/** Every `.ts` and `.js` file under `dir` (none when it does not exist). */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * `specifier` as written in `file`, resolved to the file it names: the `.ts` source of a `.js`
 * specifier, and the source of a compiled file (`../dist/src/cli/main.js` → `src/cli/main.ts`).
 */
export function resolveImport(file: string, specifier: string): string {
  const named = resolve(dirname(file), specifier);
  const source = named.replace(/([/\\])dist([/\\])/, '$1').replace(/\.js$/, '.ts');
  return existsSync(named) && !existsSync(source) ? named : source;
}

/**
 * The relative imports of `file`: `import … from`, `export … from` and `import '…'`, each
 * statement whole (type-only ones marked), and `import('…')` anywhere (lazy).
 */
export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const statements = [
    ...text.matchAll(/^(?:(?:import|export)\s[^;]*?from\s+|import\s+)'(\.[^']+)';/gms),
  ].map(([statement, specifier]) => ({
    file: resolveImport(file, specifier!),
    typeOnly: /^(?:import|export)\s+type\s/.test(statement),
    lazy: false,
  }));
  const lazy = [...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map(([, specifier]) => ({
    file: resolveImport(file, specifier!),
    typeOnly: false,
    lazy: true,
  }));
  return [...statements, ...lazy];
}

/** The files reachable from `entries` over every import (type-only and lazy ones included). */
export function reachableFrom(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file).map((edge) => edge.file));
  }
  return seen;
}
