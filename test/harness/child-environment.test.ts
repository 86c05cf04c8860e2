import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnvdata } from './start-envdata.js';

// A process a test starts that runs TypeScript (a worker under `--import tsx`, or bin/envdata.js
// while dist/ is stale) used to leave tsx's compile cache, `tsx-<uid>`, in the temporary
// directory: some 400 files after each run (issue 38).

let sources: string;
let temp: string;

beforeAll(async () => {
  sources = await mkdtemp(path.join(tmpdir(), 'envdata-child-env-src-'));
  temp = await mkdtemp(path.join(tmpdir(), 'envdata-child-env-tmp-'));
});

afterAll(async () => {
  await rm(sources, { recursive: true, force: true });
  await rm(temp, { recursive: true, force: true });
});

describe('a process started by the harness', () => {
  it('runs TypeScript under tsx and leaves nothing in its temporary directory', async () => {
    const program = path.join(sources, 'typed.ts');
    await writeFile(program, 'const answer: number = 42;\nconsole.log(`answer ${answer}`);\n');
    const child = startEnvdata(
      [],
      { TMPDIR: temp },
      {
        command: [process.execPath, '--import', 'tsx', program],
      },
    );
    await child.waitFor(/^answer 42$/m);
    expect((await child.exited).code).toBe(0);
    expect(await readdir(temp)).toEqual([]);
  });
});
