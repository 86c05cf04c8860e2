import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

const files = sourceFiles(SRC);
const text = (file: string) => readFileSync(join(SRC, file), 'utf8');

describe('where the environment is read', () => {
  it('only src/config and the CLI boundary (src/cli) touch process.env or process.argv', () => {
    expect(files.length).toBeGreaterThan(100);
    const readers = files.filter((f) => /\bprocess\.(env|argv)\b/.test(text(f)));
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.filter((f) => !/^(config|cli)\//.test(f))).toEqual([]);
  });

  it('src/config depends on nothing of envdata but its errors (not the simulator, not the CLI)', () => {
    const imports = files
      .filter((f) => f.startsWith('config/'))
      .flatMap((f) => [...text(f).matchAll(/from '(\.[^']+)'/g)].map((m) => `${f}: ${m[1]!}`));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !/: \.\/|: \.\.\/errors\//.test(i))).toEqual([]);
  });
});
