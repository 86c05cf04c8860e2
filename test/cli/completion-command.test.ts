import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { needsTools, requireTool } from '../harness/system-tools.js';

const exec = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'envdata-completion-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `envdata completion SHELL`, written to a file. */
async function script(shell: 'bash' | 'zsh'): Promise<string> {
  const result = await runCliInProcess(['completion', shell], {});
  expect(result.code, result.stderr).toBe(0);
  const file = path.join(dir, `envdata.${shell}`);
  await writeFile(file, result.stdout);
  return file;
}

/** Runs `code` in `shell` (no profile, no rc file) and returns what it printed. */
async function run(shell: 'bash' | 'zsh', args: readonly string[], code: string) {
  try {
    return (await exec(shell, [...args, '-c', code], { env: { PATH: process.env.PATH ?? '' } }))
      .stdout;
  } catch (error) {
    if (shell === 'zsh') requireTool('zsh');
    throw error;
  }
}

describe('envdata completion bash', () => {
  /** What completing the last of `words` offers, as bash's completion would call it. */
  async function complete(...words: string[]): Promise<string[]> {
    const file = await script('bash');
    const out = await run(
      'bash',
      ['--norc', '--noprofile'],
      `source ${JSON.stringify(file)}
       COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')})
       COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
       "$(complete -p envdata | sed -E 's/.*-F ([^ ]+) envdata$/\\1/')"
       printf '%s\\n' "\${COMPREPLY[@]}"`,
    );
    return out.split('\n').filter(Boolean);
  }

  it('completes commands: envdata loc<TAB> offers local and locations', async () => {
    expect((await complete('envdata', 'loc')).sort()).toEqual(['local', 'locations']);
    expect(await complete('envdata', 'locat')).toEqual(['locations']);
  });

  it('completes options of the command: envdata backfill --da<TAB> is --dataset', async () => {
    expect(await complete('envdata', 'backfill', '--da')).toEqual(['--dataset']);
  });

  it('completes subcommands, past options and their values', async () => {
    expect(await complete('envdata', 'locations', 're')).toEqual(['remove', 'restore']);
    expect(await complete('envdata', 'backfill', '--window', '48h', '--dry')).toEqual([
      '--dry-run',
    ]);
    expect(await complete('envdata', 'backfill', '--window', '')).toEqual([]);
    expect(await complete('envdata', 'completion', '')).toEqual(['bash', 'zsh']);
  });

  it('completes file names where a command takes a file', async () => {
    await writeFile(path.join(dir, 'cities.csv'), 'name,lat,lng\n');
    expect(await complete('envdata', 'locations', 'import', path.join(dir, 'cit'))).toEqual([
      path.join(dir, 'cities.csv'),
    ]);
  });
});

describe('envdata completion zsh', needsTools('zsh'), () => {
  it('parses (zsh -n)', async () => {
    const file = await script('zsh');
    expect(await run('zsh', ['-f'], `zsh -n ${JSON.stringify(file)} && print parsed`)).toBe(
      'parsed\n',
    );
  });

  it('offers the same commands and options, with descriptions', async () => {
    const file = await script('zsh');
    // The completion system's own functions, reduced to printing what they were given.
    const out = await run(
      'zsh',
      ['-f'],
      `compdef() { print -r -- "compdef $*" }
       _describe() { print -rl -- "\${(@P)4}" }
       _files() { print -r -- '(files)' }
       compadd() { shift; print -rl -- "$@" }
       source ${JSON.stringify(file)}
       complete() { words=("$@"); CURRENT=\${#words}; print -r -- "== $*"; _envdata }
       complete envdata loc
       complete envdata backfill --da
       complete envdata locations import ''
       complete envdata completion ''`,
    );
    const sections = Object.fromEntries(
      out
        .split(/^== /m)
        .filter(Boolean)
        .map((part) => {
          const [title, ...lines] = part.trim().split('\n');
          return [title, lines];
        }),
    );
    expect(out).toMatch(/^compdef _envdata envdata$/m);
    expect(sections['envdata loc']).toContain(
      'locations:Register, import, list and remove locations',
    );
    expect(sections['envdata backfill --da']).toContain('--dataset:pollen, weather or all');
    expect(sections['envdata locations import ']).toEqual(['(files)']);
    expect(sections['envdata completion ']).toEqual(['bash', 'zsh']);
  });
});

describe('envdata completion', () => {
  it('refuses another shell as a usage error', async () => {
    const result = await runCliInProcess(['completion', 'fish'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Allowed choices are bash, zsh/);
  });
});
