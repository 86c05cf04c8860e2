// The harness is the one place in the tests that reads the environment.
const env = process.env;

/**
 * The environment of a process a test starts: PATH, HOME and TMPDIR of the run, tsx's disk cache
 * off, then `extra` on top; nothing else leaks in from the developer's shell.
 *
 * - TMPDIR goes along so that a child's temporary files land where the run's do: in
 *   scripts/ci-bare-run.sh that is a directory it checks is empty at the end; without TMPDIR a
 *   child wrote to /tmp, where that check never looked.
 * - TSX_DISABLE_CACHE: a child that runs TypeScript (a test's worker under `--import tsx`, or
 *   bin/envdata.js while dist/ is stale) would otherwise leave tsx's compile cache,
 *   `tsx-<uid>` (some 400 files), in the temporary directory; a run leaves nothing there.
 */
export function childEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: env.PATH ?? '',
    HOME: env.HOME ?? '/tmp',
    ...(env.TMPDIR !== undefined && env.TMPDIR !== '' && { TMPDIR: env.TMPDIR }),
    TSX_DISABLE_CACHE: '1',
    ...extra,
  };
}
