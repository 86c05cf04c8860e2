import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUEUE_SUITES, REDIS_ONLY_SUITES } from './queue-suites.js';

/**
 * CI runs the suite in two legs at once (`.ci/run`): the main leg on the machine's PostgreSQL 15
 * and Redis, with every system tool, under CI=true; the bare leg in a network namespace with
 * nothing answering, CI unset, without the tools (scripts/ci-bare-run.sh: its own embedded
 * PostgreSQL 18, no Redis). The machine has two cores and each leg keeps one busy, so what runs
 * in both costs CI its whole time. `.ci/run` sets ENVDATA_TEST_LEG (`main`, `bare`) and each
 * leg leaves to the other what runs there as well (`legExclusions`); `.ci/run` fails unless
 * every test of what the main leg left to the bare leg passed there, none skipped
 * (`bareLegChecks`). Unset (everywhere but CI), `npm test` runs every file.
 *
 * Run in both legs: every file that behaves differently on a bare machine (it needs a system
 * tool, a Redis, the npm registry or a Docker engine, and skips without: `behavesByMachine`);
 * they prove the bare path. Run in one: the rest, which behave the same wherever a PostgreSQL
 * answers.
 */

/**
 * The files that run envdata with nothing answering at DATABASE_URL and REDIS_URL, as root and
 * as a normal user, needing none of the optional tools (a pack and an install, five demos): the
 * bare leg's alone, where they matter most. The suite's slowest files.
 */
export const BARE_LEG_SUITES: readonly string[] = [
  'test/package/tarball.install.test.ts',
  'test/demo/demo.private-directories.test.ts',
  'test/demo/demo.bare-machine.test.ts',
];

export type CiLeg = 'main' | 'bare';

/** The CI leg this run is (ENVDATA_TEST_LEG), or `undefined`: every file runs. */
export function ciLeg(env: NodeJS.ProcessEnv = process.env): CiLeg | undefined {
  const leg = env.ENVDATA_TEST_LEG;
  if (leg === undefined || leg === '') return undefined;
  if (leg !== 'main' && leg !== 'bare') {
    throw new Error(
      `ENVDATA_TEST_LEG must be main or bare (CI's legs), not ${JSON.stringify(leg)}`,
    );
  }
  return leg;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A test that runs a system tool (`needsTools`, system-tools.ts): it skips where one is missing. */
const NEEDS_TOOLS = /\bneedsTools\(/;

/** A test that skips on some machines for another reason: a Redis, the registry, a Docker engine. */
const SKIPS = /\bskipBecause\(|\.skipIf\(|\.runIf\(|\.skip\(/;

/** Whether a test file behaves differently on a bare machine (it skips there, or may). */
const behavesByMachine = (text: string) => NEEDS_TOOLS.test(text) || SKIPS.test(text);

/** The files of `core` (vitest.config.ts), as paths from the repository's root. */
function coreFiles(): string[] {
  const queued = new Set([...QUEUE_SUITES, ...REDIS_ONLY_SUITES]);
  return readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((entry) => path.posix.join('test', String(entry).split(path.sep).join('/')))
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith('test/hosts/'))
    .filter((file) => !queued.has(file))
    .sort();
}

/** Which leg runs a `core` file that behaves the same on every machine: half each, by its path. */
function legOf(file: string): CiLeg {
  return createHash('sha1').update(file).digest()[0]! % 2 === 0 ? 'main' : 'bare';
}

/**
 * What each leg leaves to the other, by project:
 * - `core`: the main leg leaves BARE_LEG_SUITES; of the files that behave the same on every
 *   machine, each leg runs half (`legOf`) and leaves the other half.
 * - `postgres` (BullMQ's PostgreSQL backend): the main leg leaves every queue file that needs no
 *   system tool (it runs them on the `redis` project; the bare leg has no Redis), so each queue
 *   file runs once on each backend.
 */
export function legExclusions(leg: CiLeg | undefined): {
  core: string[];
  postgres: string[];
} {
  if (leg === undefined) return { core: [], postgres: [] };
  const same = coreFiles().filter(
    (file) => !BARE_LEG_SUITES.includes(file) && !behavesByMachine(read(file)),
  );
  const other = same.filter((file) => legOf(file) !== leg);
  if (leg === 'bare') return { core: other, postgres: [] };
  return {
    core: [...BARE_LEG_SUITES, ...other],
    postgres: QUEUE_SUITES.filter((file) => !NEEDS_TOOLS.test(read(file))),
  };
}

/**
 * What `.ci/run` checks in the bare leg's output: one `project file` line for each file the main
 * leg left to it, which must have passed every test there and skipped none.
 */
export function bareLegChecks(): string[] {
  const left = legExclusions('main');
  return [
    ...left.core.map((file) => `core ${file}`),
    ...left.postgres.map((file) => `postgres ${file}`),
  ];
}

// `npx tsx test/harness/bare-leg-suites.ts`: the lines of bareLegChecks (for `.ci/run`).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${bareLegChecks().join('\n')}\n`);
}
