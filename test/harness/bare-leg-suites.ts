import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QUEUE_SUITES } from './queue-suites.js';

/**
 * The test files that run the same with or without a Postgres and a Redis on the machine: every
 * test in them runs envdata with nothing answering at DATABASE_URL and REDIS_URL (its local
 * PostgreSQL then), as root and as a normal user, and needs none of the optional tools. CI's main
 * leg leaves them to its bare leg, which runs them where they matter most, at the same time
 * (`.ci/run` sets ENVDATA_TEST_LEFT_TO_BARE_LEG=1 for the main leg; vitest.config.ts excludes
 * them then). Everywhere else, `npm test` runs them. They are the suite's slowest files (a pack
 * and an install, five demos): run twice, they cost CI about seven minutes.
 */
export const BARE_LEG_SUITES: readonly string[] = [
  'test/package/tarball.install.test.ts',
  'test/demo/demo.private-directories.test.ts',
  'test/demo/demo.bare-machine.test.ts',
];

/** Whether this run leaves BARE_LEG_SUITES to CI's bare leg (ENVDATA_TEST_LEFT_TO_BARE_LEG=1). */
export function leftToBareLeg(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ENVDATA_TEST_LEFT_TO_BARE_LEG === '1';
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Whether a test file declares a test that runs a system tool (`needsTools`, system-tools.ts). */
function needsSystemTools(file: string): boolean {
  return /\bneedsTools\(/.test(readFileSync(`${ROOT}${file}`, 'utf8'));
}

/**
 * The queue files whose `postgres` project (BullMQ's PostgreSQL backend) CI's main leg leaves to
 * the bare leg: every file of QUEUE_SUITES but those that need a system tool, which the bare
 * leg does not have (their tests would skip there). The bare leg runs the `postgres` project
 * against its own PostgreSQL; the main leg runs every file of the `redis` project and of `core`
 * against the machine's, so each queue file still runs on both backends, once each. Run twice,
 * the `postgres` project cost CI a third of its time (a third of the main leg's files, most of
 * them backfills).
 */
export function postgresLegLeftToBareLeg(): string[] {
  return QUEUE_SUITES.filter((file) => !needsSystemTools(file));
}

/**
 * What `.ci/run` checks in the bare leg's output when the main leg left files to it: one
 * `project file` line each, for a run that passed every test of the file and skipped none.
 */
export function bareLegChecks(): string[] {
  return [
    ...BARE_LEG_SUITES.map((file) => `core ${file}`),
    ...postgresLegLeftToBareLeg().map((file) => `postgres ${file}`),
  ];
}

// `npx tsx test/harness/bare-leg-suites.ts`: the lines of bareLegChecks (for `.ci/run`).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${bareLegChecks().join('\n')}\n`);
}
