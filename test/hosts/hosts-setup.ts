import { labUnavailable, removeLeftoverLabs } from './host-lab.js';

/**
 * Global setup of `npm run test:hosts` (vitest.hosts.config.ts), before the suite's services:
 * fails at once, saying why, on a machine that cannot make network namespaces, and removes what
 * an earlier run that crashed or was killed left behind, before the run and after it.
 */
export default function setup(): () => void {
  const why = labUnavailable();
  if (why !== undefined) {
    throw new Error(`npm run test:hosts cannot run here: ${why}.`);
  }
  removeLeftoverLabs();
  return () => removeLeftoverLabs();
}
