import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envdataShellCommand } from '../../src/cli/envdata-shell-command.js';
import { ENVDATA_BIN } from '../harness/run-envdata.js';

// The form of `envdata` the demo's closing hints use: what runs from the user's shell.

let root: string;
const repo = path.dirname(path.dirname(ENVDATA_BIN));

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envdata-shell-'));
  // A global install: npm links PREFIX/bin/envdata to the package's bin/envdata.js.
  await mkdir(path.join(root, 'global'));
  await symlink(ENVDATA_BIN, path.join(root, 'global', 'envdata'));
  // Another program named envdata.
  await mkdir(path.join(root, 'other'));
  await writeFile(path.join(root, 'other', 'envdata'), '#!/bin/sh\n', { mode: 0o755 });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('envdataShellCommand', () => {
  it('is `envdata` when that name on PATH is this program', async () => {
    const PATH = ['/nonexistent', path.join(root, 'global'), '/usr/bin'].join(path.delimiter);
    expect(await envdataShellCommand({ PATH, INIT_CWD: repo }, ENVDATA_BIN)).toBe('envdata');
  });

  it('is `node bin/envdata.js` in a clone, from where the user typed', async () => {
    const PATH = ['/usr/bin', '/bin'].join(path.delimiter);
    expect(await envdataShellCommand({ PATH, INIT_CWD: repo }, ENVDATA_BIN)).toBe(
      'node bin/envdata.js',
    );
    // `npm run demo` from a subdirectory runs in the root; the user's shell is still below it.
    expect(await envdataShellCommand({ PATH, INIT_CWD: path.join(repo, 'src') }, ENVDATA_BIN)).toBe(
      `node ${ENVDATA_BIN}`,
    );
  });

  it('is not `envdata` when the first one on PATH is another program', async () => {
    const PATH = [path.join(root, 'other'), path.join(root, 'global')].join(path.delimiter);
    expect(await envdataShellCommand({ PATH, INIT_CWD: repo }, ENVDATA_BIN)).toBe(
      'node bin/envdata.js',
    );
  });
});
