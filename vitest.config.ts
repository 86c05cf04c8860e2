import { availableParallelism } from 'node:os';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { heartbeatReporter } from './test/harness/heartbeat-reporter.js';
import { QUEUE_SUITES, REDIS_ONLY_SUITES } from './test/harness/queue-suites.js';
import { redisLegReporter, redisLegRuns } from './test/harness/redis-leg.js';
import { skipReasonsReporter } from './test/harness/skip-reasons.js';
import { systemToolsReporter } from './test/harness/system-tools.js';

/**
 * Three projects, named in the output: `core` (every file that does not use the queue, once,
 * but for test/hosts/, which needs root: `npm run test:hosts`, vitest.hosts.config.ts),
 * and the files of QUEUE_SUITES twice, as `redis` and `postgres` (ENVDATA_TEST_QUEUE_BACKEND);
 * the files of REDIS_ONLY_SUITES (a Redis Cluster) run in `redis` only.
 * Without a Redis (and outside CI) the `redis` project is left out and the run says so in its
 * last line; under CI=true a missing Redis fails the run (test/harness/global-setup.ts).
 * Tests that need a system tool (promtool, zsh, tmux, Chromium) skip without it outside CI, and
 * the last lines say what to install (test/harness/system-tools.ts); under CI=true they fail.
 * Other tests skipped for a reason of the machine (`skipBecause`: no npm registry for the tarball
 * install) are named there too (test/harness/skip-reasons.ts). A file that runs a minute with
 * nothing printed is named every minute (test/harness/heartbeat-reporter.ts).
 */
// Per project, not at the root: the root would run it once more, for no test file.
const GLOBAL_SETUP = ['test/harness/global-setup.ts'];

/**
 * How many test files run at once: ENVDATA_TEST_WORKERS, else one more than the cores. Each file
 * has its own database and queue prefix (test/harness/test-environment.ts) and spends most of its
 * time waiting on timers, child processes and the network, so vitest's default (cores − 1: one
 * file at a time on two cores) leaves the machine idle.
 */
function testWorkers(): number {
  const chosen = process.env.ENVDATA_TEST_WORKERS;
  if (chosen === undefined || chosen === '') return availableParallelism() + 1;
  const workers = Number(chosen);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new Error(`ENVDATA_TEST_WORKERS must be a whole number of files at once, 1 or more`);
  }
  return workers;
}

export default defineConfig(async (): Promise<ViteUserConfig> => {
  const redisLeg = await redisLegRuns();
  const leg = (backend: 'redis' | 'postgres') => ({
    extends: true as const,
    test: {
      name: backend,
      globalSetup: GLOBAL_SETUP,
      include: [...QUEUE_SUITES, ...(backend === 'redis' ? REDIS_ONLY_SUITES : [])],
      env: { ENVDATA_TEST_QUEUE_BACKEND: backend },
    },
  });
  return {
    test: {
      setupFiles: ['test/harness/per-file-setup.ts'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      maxWorkers: testWorkers(),
      reporters: [
        'default',
        heartbeatReporter(),
        redisLegReporter(redisLeg),
        systemToolsReporter(),
        skipReasonsReporter(),
      ],
      projects: [
        {
          extends: true,
          test: {
            name: 'core',
            globalSetup: GLOBAL_SETUP,
            include: ['test/**/*.test.ts'],
            // test/hosts/ needs root and network namespaces: `npm run test:hosts` runs it.
            exclude: [...QUEUE_SUITES, ...REDIS_ONLY_SUITES, 'test/hosts/**'],
          },
        },
        ...(redisLeg.runs ? [leg('redis')] : []),
        leg('postgres'),
      ],
    },
  };
});
