import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import type { DeclaredProblem } from '../../src/declared/declared-problem.js';
import { parseDeclaredFile } from '../../src/declared/parse-declared-file.js';
import { readDeclaredLocationFile } from '../../src/declared/read-declared-location-file.js';
import { outputOf } from '../harness/run-command.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';

/**
 * A declared file cannot reach outside itself: it is planned in CI, where secrets are set, so
 * neither a `file:` entry nor a `${VAR}` may bring a secret into a message or the warehouse, and
 * reading it is bounded whatever `-f` names. Each case runs the real command; none needs the
 * warehouse, as the file is refused before envdata connects (DATABASE_URL answers nothing).
 */

const dir = useTempDir('envdata-declared-bounds-');

const API_KEY = 'k-Zq81TopSecretApiKey0042';
const NOTIFY_URL = 'https://hooks.example.com/services/T000/B000/HookSecretPath77';
const SECRETS = {
  ENVDATA_API_KEY: API_KEY,
  ENVDATA_NOTIFY_URL: NOTIFY_URL,
  // Nothing listens there: a file that were accepted would fail to connect, not exit 2.
  DATABASE_URL: 'postgres://postgres:DbPassword93@127.0.0.1:1/none',
};

/** `envdata plan -f FILE` with the secrets above set, as CI runs it. */
const plan = (file: string, env: Record<string, string> = {}) =>
  runEnvdata(['plan', '-f', file], { ...SECRETS, ...env });

/** What no output may hold: a secret, in any case (a CSV header is read lower-cased). */
function expectNoSecret(output: string): void {
  const lower = output.toLowerCase();
  for (const secret of [API_KEY, 'HookSecretPath77', 'DbPassword93', 'OutsideSecret55']) {
    expect(lower).not.toContain(secret.toLowerCase());
  }
}

/** A folder of its own, as a repository holding `envdata.yaml`; returns the file's path. */
async function repo(name: string, yaml: string): Promise<string> {
  await mkdir(dir.path(name), { recursive: true });
  return dir.write(`${name}/envdata.yaml`, yaml);
}

const declaring = (entry: string) =>
  `version: 1\nlocations:\n  - ${entry}\ndatasets:\n  weather: { since: -1d }\n`;

describe('a file: entry cannot reach outside the declared file', () => {
  it('refuses /proc/self/environ, an absolute path, and quotes nothing of it', async () => {
    const file = await repo('environ', declaring('{ file: /proc/self/environ }'));
    const result = await plan(file);
    expectNoSecret(result.stdout + result.stderr);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(`${file}:3:13: file: /proc/self/environ: an absolute path`);
  });

  it('refuses a path that leads out of its folder with .., and a link that does', async () => {
    await dir.write('OutsideSecret.csv', 'OutsideSecret55,lat\n1,2\n');
    const up = await repo('up', declaring('{ file: ../OutsideSecret.csv }'));
    const result = await plan(up);
    expectNoSecret(result.stdout + result.stderr);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain("leads outside the declared file's folder");

    const linked = await repo('linked', declaring('{ file: cities.csv }'));
    await symlink(dir.path('OutsideSecret.csv'), dir.path('linked/cities.csv'));
    const viaLink = await plan(linked);
    expectNoSecret(viaLink.stdout + viaLink.stderr);
    expect(viaLink.code, outputOf(viaLink)).toBe(2);
    expect(viaLink.stderr).toContain("is a link that leads outside the declared file's folder");
  });

  it('a bad row of a file in the folder is told by its line, never by its text', async () => {
    const file = await repo(
      'rows',
      declaring('{ file: rows.csv }').replace('datasets', '  - { file: rows.json }\ndatasets'),
    );
    await dir.write(
      'rows/rows.csv',
      'name,lat,lng,country,OutsideSecret55\nA,1,1,,\n12345,OutsideSecret55,2,OutsideSecret55,x\n',
    );
    await dir.write('rows/rows.json', '[{"name":"B","lat":1,"lng":1,"OutsideSecret55":1}]');
    const result = await plan(file);
    expectNoSecret(result.stdout + result.stderr);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain('file: rows.csv: line 1: unknown column(s) at position(s) 5');
    expect(result.stderr).toContain('file: rows.json: index 0: unknown key(s); use');
  });
});

describe('${VAR} cannot read a secret', () => {
  it("refuses envdata's own secret variables, naming them, never their values", async () => {
    const file = await repo(
      'own',
      'version: 1\nlocations:\n  - { name: "k${ENVDATA_API_KEY}", lat: 1, lng: 1 }\ndatasets:\n  weather: { since: "${ENVDATA_NOTIFY_URL}" }\n  pollen: { since: "${DATABASE_URL}" }\n',
    );
    const result = await plan(file);
    expectNoSecret(result.stdout + result.stderr);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(
      `${file}:3:13: locations[0].name: \${ENVDATA_API_KEY}: ENVDATA_API_KEY may hold a secret`,
    );
    expect(result.stderr).toContain('ENVDATA_NOTIFY_URL may hold a secret');
    expect(result.stderr).toContain('DATABASE_URL may hold a secret');
  });

  it('refuses a variable whose name or value looks secret, whatever it is called', async () => {
    const file = await repo(
      'other',
      'version: 1\nlocations:\n  - { name: "${GITHUB_TOKEN}", lat: 1, lng: 1 }\n  - { name: "${CI_JOB_ID}", lat: 2, lng: 2 }\n  - { place: "${SITE}" }\ndatasets:\n  weather: { since: -1d }\n',
    );
    const result = await plan(file, {
      GITHUB_TOKEN: 'OutsideSecret55',
      CI_JOB_ID: 'eyJhbGciOiJIUzI1NiJ9OutsideSecret55xyz',
      SITE: 'https://OutsideSecret55.example.com/',
    });
    expectNoSecret(result.stdout + result.stderr);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain('GITHUB_TOKEN may hold a secret');
    expect(result.stderr).toContain('the value of CI_JOB_ID looks like a secret');
    expect(result.stderr).toContain('the value of SITE looks like a secret');
  });

  it('no problem quotes a value read from the environment', async () => {
    const problems = await problemsOf(
      'version: 1\nlocations:\n  - { name: "${A}", lat: 1, lng: 1, country: "${B}" }\ndatasets:\n  weather: { since: "${C}" }\n',
      { A: '4711', B: 'Secretland', C: 'Secret date' },
    );
    expect(problems).toEqual([
      expect.stringMatching(/^3:13 locations\[0\]\.name is only digits/),
      expect.stringMatching(
        /^3:\d+ locations\[0\]\.country: must be a two-letter code such as DE$/,
      ),
      expect.stringMatching(/^5:21 datasets\.weather\.since is not a date/),
    ]);
    expect(problems.join('\n')).not.toMatch(/4711|Secret/);
  });

  it('a file: entry takes no ${VAR}', async () => {
    expect(await problemsOf(declaring('{ file: "${DIR}/a.csv" }'), { DIR: 'x' })).toEqual([
      `3:13 locations[0].file: takes no \${VAR}: write the name of a file in this file's folder`,
    ]);
  });
});

describe('every YAML failure is exit 2 with its line', () => {
  it('a syntax error quotes nothing of the file', async () => {
    const problems = await problemsOf('version: 1\nx: |x OutsideSecret55\n  y\n', {});
    expect(problems[0]).toBe('2:5 Block scalar header includes extra characters');
    expect(problems.join('\n')).not.toMatch(/OutsideSecret55/);
  });

  it('an alias bomb is refused where its first alias is, not a crash', async () => {
    const lol = `[${Array(9).fill('"lol"').join(',')}]`;
    const levels = ['a: &a ' + lol];
    for (const name of 'bcdefghi') {
      const previous = String.fromCharCode(name.charCodeAt(0) - 1);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const file = await repo(
      'bomb',
      `version: 1\nbomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`,
    );
    const result = await plan(file);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(`${file}:4:10: the aliases (*name) expand too far`);
    expect(result.stderr).not.toContain('please report');
  });
});

describe('reading the declared file is bounded', () => {
  it('-f refuses a FIFO, a device and a directory without reading them', async () => {
    const fifo = dir.path('declared.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [file, what] of [
      [fifo, 'a FIFO'],
      ['/dev/zero', 'a character device'],
      [dir.path(''), 'a directory'],
    ] as const) {
      const result = await plan(file);
      expect(result.code, outputOf(result)).toBe(2);
      expect(result.stderr).toContain(`cannot read ${file} (not a regular file but ${what})`);
    }
  });

  it('-f refuses a file over 1 MiB', async () => {
    const file = await dir.write('big.yaml', `version: 1\n# ${'x'.repeat(1_048_576)}\n`);
    const result = await plan(file);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(`cannot read ${file} (larger than 1 MiB)`);
  });

  it('a file: entry that is a FIFO is refused, not waited for', async () => {
    const file = await repo('fifo', declaring('{ file: cities.csv }'));
    execFileSync('mkfifo', [dir.path('fifo/cities.csv')]);
    const result = await plan(file);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(
      'file: cities.csv: cannot read it (not a regular file but a FIFO)',
    );
  });

  it('declares at most ENVDATA_IMPORT_MAX_ROWS locations, its own and its files together', async () => {
    const file = await repo(
      'many',
      declaring('{ name: A, lat: 1, lng: 1 }').replace(
        'datasets',
        '  - { name: B, lat: 2, lng: 2 }\n  - { file: more.csv }\n  - { file: never.csv }\ndatasets',
      ),
    );
    await dir.write('many/more.csv', 'name,lat,lng\nC,3,3\nD,4,4\n');
    const result = await plan(file, { ENVDATA_IMPORT_MAX_ROWS: '3' });
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(
      'file: more.csv: the declared file holds more than 3 locations, its own and its files',
    );
    // Reading stopped there: the next entry (which does not exist) was not read.
    expect(result.stderr).not.toContain('never.csv');
  });

  it('locations import refuses a FIFO, not waited for', async () => {
    const fifo = dir.path('import.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await runEnvdata(['locations', 'import', fifo], SECRETS);
    expect(result.code, outputOf(result)).toBe(2);
    expect(result.stderr).toContain(`cannot read ${fifo} (not a regular file but a FIFO)`);
  });
});

/** The problems `text` is refused with, as `line:column message`, its files read in `dir`. */
async function problemsOf(text: string, env: Record<string, string>): Promise<string[]> {
  const error = await parseDeclaredFile(text, {
    fileName: 'envdata.yaml',
    env,
    readLocationFile: (name, maxRows) => readDeclaredLocationFile(name, dir.path(''), maxRows),
  }).then(
    () => expect.fail('the file was accepted'),
    (e: unknown) => e,
  );
  if (!isEnvdataError(error) || error.code !== 'VALIDATION_FAILED') throw error;
  return (error.details.problems as DeclaredProblem[]).map(
    (p) => `${p.line}:${p.column} ${p.message}`,
  );
}
