import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface TempDir {
  /** Where `name` is (or would be) in the directory. */
  path(name: string): string;
  /** Writes `text` to `name` in the directory and returns its path. */
  write(name: string, text: string): Promise<string>;
}

/** A directory of the test file's own under the system's temporary one, removed after the file. */
export function useTempDir(prefix: string): TempDir {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const at = (name: string) => {
    if (!dir) throw new Error('useTempDir: directory used before beforeAll');
    return path.join(dir, name);
  };
  return {
    path: at,
    async write(name, text) {
      const file = at(name);
      await writeFile(file, text);
      return file;
    },
  };
}
