import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { freePort } from '../harness/private-services.js';
import { isRoot, normalUser, removeNormalUser, type NormalUser } from '../harness/normal-user.js';
import { runCommand, type CommandResult } from '../harness/run-command.js';
import { makeCloneLike } from './clone-like.js';

// The demo as a newcomer runs it, from a clone (`node bin/envdata.js demo`, what `npm run demo`
// runs) in a directory no other user may enter, with nothing answering at DATABASE_URL or
// REDIS_URL: as root (the local PostgreSQL then runs as the user envdata), and as a normal user.

/** A demo backfills 10 years of weather for 4 locations; the machine may be shared. */
const DEMO_TIMEOUT = 300_000;

/**
 * The demo with a year of weather instead of ten: where its directories go and who runs it are
 * the point here, not the size of its backfill (demo.bare-machine.test.ts runs the whole demo).
 */
const QUICK_DEMO = ['demo', '--weather-years', '1'];

interface Ids {
  readonly uid: number;
  readonly gid: number;
}

type Run = CommandResult;

/** `node bin/envdata.js ARGS…` in `clone`, with only PATH and `env`, as `ids` when given. */
function envdataIn(
  clone: string,
  args: readonly string[],
  env: Record<string, string>,
  ids?: Ids,
): Promise<Run> {
  return runCommand(process.execPath, [path.join('bin', 'envdata.js'), ...args], {
    cwd: clone,
    env: { PATH: process.env.PATH ?? '', ...env },
    ...ids,
  });
}

/** Environment of a demo with nothing answering at DATABASE_URL or REDIS_URL. */
async function bareMachine(): Promise<Record<string, string>> {
  return {
    DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/envdata`,
    REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
  };
}

/** What a person reads, and no log object (a JSON line) in it. */
function expectReadable(run: Run): void {
  const objects = `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((l) => l.trimStart().startsWith('{'));
  expect(objects).toEqual([]);
}

/** The variables of the `export NAME=value …` lines the demo printed. */
function exported(stdout: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, rest] of stdout.matchAll(/^ {2}export (.+)$/gm)) {
    for (const pair of rest!.split(' ')) {
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.runIf(isRoot)(
  'npm run demo as root, from a clone under a directory closed to others',
  () => {
    let parent: string;
    let clone: string;
    let localParent: string;
    let localDir: string;
    let temp: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      temp = await mkdtemp(path.join(tmpdir(), 'envdata-demo-tmp-'));
      // mkdtemp makes it 0700, like /root: the user envdata may not enter it. Left so.
      parent = await mkdtemp(path.join(tmpdir(), 'envdata-private-'));
      clone = path.join(parent, 'envdata');
      await makeCloneLike(clone);
      // Not /var/lib/envdata (root's default, shared by the machine): a directory of this run, which
      // envdata creates itself.
      localParent = path.join(tmpdir(), `envdata-local-${randomBytes(4).toString('hex')}`);
      localDir = path.join(localParent, 'postgres');
      env = {
        HOME: path.join(parent, 'home'),
        ENVDATA_LOCAL_DIR: localDir,
        TMPDIR: temp,
        ...(await bareMachine()),
      };
    }, 120_000);

    afterAll(async () => {
      await envdataIn(clone, ['local', 'stop'], env);
      await rm(localParent, { recursive: true, force: true });
      await rm(parent, { recursive: true, force: true });
      await rm(temp, { recursive: true, force: true });
    });

    it(
      'says where the local PostgreSQL goes before creating it, prints no log object, and ends with steps that run as printed',
      async () => {
        const demo = await envdataIn(clone, QUICK_DEMO, env);
        expect(demo.code, demo.stderr).toBe(0);
        const lines = demo.stdout.split('\n');
        expect(lines[0]).toMatch(
          new RegExp(
            `^nothing answers at DATABASE_URL \\S+: creating a local PostgreSQL in ${escape(localDir)} \\(about 15 s, once, run by user envdata `,
          ),
        );
        expect(lines[1]).toMatch(
          /^created and started a local PostgreSQL on 127\.0\.0\.1:\d+, data in .* \(runs as user envdata\)$/,
        );
        expect(demo.stdout).toMatch(/^warehouse ready: .*applied \d+ migration\(s\)/m);
        expect(demo.stdout).not.toMatch(/"migration"|applied\b.*component/);
        expectReadable(demo);
        // Nothing left in the temporary directory but tsx's compile cache (the sources run as
        // TypeScript), which is not envdata's.
        expect((await readdir(temp)).filter((name) => !/^tsx-\d+$/.test(name))).toEqual([]);

        // The programs sit under the closed directory: linked beside the data, which the user
        // envdata reaches through directories envdata made; the user's own kept their mode.
        expect((await stat(parent)).mode & 0o777).toBe(0o700);
        expect((await stat(localParent)).mode & 0o777).toBe(0o755);
        expect((await stat(path.join(localDir, 'programs', 'bin', 'postgres'))).isFile()).toBe(
          true,
        );

        // Next steps as a clone runs them (`envdata` is not on PATH here), with the demo key.
        expect(demo.stdout).toMatch(/^ {2}node bin\/envdata\.js simulate &$/m);
        expect(demo.stdout).toMatch(/^ {2}node bin\/envdata\.js locations add --place Paris$/m);
        expect(exported(demo.stdout)).toMatchObject({
          ENVDATA_API_KEY: DEMO_API_KEY,
          ENVDATA_BASE_URL: 'http://127.0.0.1:8787',
          ENVDATA_QUEUE_BACKEND: 'postgres',
          ENVDATA_LOCAL_DIR: localDir,
        });
        expect(demo.stdout).toContain(
          '`node bin/envdata.js local stop` stops the local PostgreSQL',
        );
        const status = await envdataIn(clone, ['locations', 'list'], {
          HOME: env.HOME!,
          ...exported(demo.stdout),
        });
        expect(status.code, status.stderr).toBe(0);
        expect(status.stdout).toMatch(/Berlin/);
      },
      DEMO_TIMEOUT,
    );
  },
);

describe('npm run demo as a normal user, from a clone in a home only it may enter', () => {
  let user: NormalUser | undefined;
  let home: string;
  let clone: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    user = await normalUser();
    home = await mkdtemp(path.join(tmpdir(), 'envdata-home-'));
    clone = path.join(home, 'envdata');
    await makeCloneLike(clone);
    if (user) await chown(home, user.uid, user.gid);
    env = { HOME: home, ...(await bareMachine()) };
  }, 120_000);

  afterAll(async () => {
    if (user) await envdataIn(clone, ['local', 'stop'], env, user);
    await removeNormalUser(user);
    await rm(home, { recursive: true, force: true });
  });

  it(
    "keeps the local PostgreSQL in the user's data directory, said before it is created",
    async (context) => {
      if (!user) context.skip('useradd could not create a user to run the demo as');
      const demo = await envdataIn(clone, QUICK_DEMO, env, user);
      expect(demo.code, demo.stderr).toBe(0);
      const dir = path.join(home, '.local', 'share', 'envdata', 'postgres');
      expect(demo.stdout.split('\n')[0]).toMatch(
        new RegExp(`: creating a local PostgreSQL in ${escape(dir)} \\(about 15 s, once\\)$`),
      );
      expectReadable(demo);
      expect((await stat(path.join(dir, 'data'))).uid).toBe(user!.uid);
      // Nothing of it in the clone.
      await expect(stat(path.join(clone, '.envdata'))).rejects.toThrow(/ENOENT/);
      expect(demo.stdout).toContain(`its data stays in ${dir}`);
    },
    DEMO_TIMEOUT,
  );
});
