import { defineConfig } from 'vitest/config';

/**
 * `npm run test:hosts`: the tests of envdata on many hosts (test/hosts/), which make network
 * namespaces and so need root. `npm test` leaves them out (vitest.config.ts).
 */
export default defineConfig({
  test: {
    name: 'hosts',
    include: ['test/hosts/**/*.test.ts'],
    // The root check first: without root, nothing else is started.
    globalSetup: ['test/hosts/hosts-setup.ts', 'test/harness/global-setup.ts'],
    setupFiles: ['test/harness/per-file-setup.ts'],
    testTimeout: 150_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
