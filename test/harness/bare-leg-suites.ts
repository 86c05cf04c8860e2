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
