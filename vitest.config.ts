import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { ciLeg, legExclusions } from './test/harness/bare-leg-suites.js';
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

export default defineConfig(async (): Promise<ViteUserConfig> => {
  const redisLeg = await redisLegRuns();
  // CI's legs leave to each other what runs there as well (test/harness/bare-leg-suites.ts).
  const leftToOtherLeg = legExclusions(ciLeg());
  const leg = (backend: 'redis' | 'postgres') => ({
    extends: true as const,
    test: {
      name: backend,
      globalSetup: GLOBAL_SETUP,
      include: [...QUEUE_SUITES, ...(backend === 'redis' ? REDIS_ONLY_SUITES : [])],
      ...(backend === 'postgres' && leftToOtherLeg.postgres.length > 0
        ? { exclude: leftToOtherLeg.postgres }
        : {}),
      env: { ENVDATA_TEST_QUEUE_BACKEND: backend },
    },
  });
  return {
    test: {
      setupFiles: ['test/harness/per-file-setup.ts'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
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
            exclude: [
              ...QUEUE_SUITES,
              ...REDIS_ONLY_SUITES,
              'test/hosts/**',
              ...leftToOtherLeg.core,
            ],
          },
        },
        ...(redisLeg.runs ? [leg('redis')] : []),
        leg('postgres'),
      ],
    },
  };
});
