import { afterAll } from 'vitest';
import { openResources } from '../../src/lifecycle/open-resources.js';
import { killRunningCommands } from './run-command.js';

// Registered before the test file's own hooks, so it runs after them (vitest runs after-hooks
// as a stack): whatever is still open then was leaked by the file.
afterAll(async () => {
  // A command a timed-out test left running would hold its database, ports and a core.
  killRunningCommands();
  const leaked = openResources();
  if (leaked.length === 0) return;
  await Promise.allSettled(leaked.map((resource) => resource.close()));
  throw new Error(
    `This test file left ${leaked.length} resource(s) open: ${leaked
      .map((r) => `${r.kind} ${r.name}`)
      .join(', ')}. Close every app, pool, queue and worker in afterAll/afterEach.`,
  );
});
