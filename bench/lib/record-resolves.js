// @ts-check
/**
 * `node --import ./bench/lib/record-resolves.js …` appends the URL of every module the program
 * resolves (ESM imports, and the packages it imports from CommonJS) to the file named by
 * ENVDATA_RESOLVE_LOG, one a line: what a command loads, for bench:cli and the lazy-command
 * test. Node 20's `require.cache` and `process.moduleLoadList` do not list ES modules.
 */
import { register } from 'node:module';

if (process.env.ENVDATA_RESOLVE_LOG) {
  register('./record-resolves-hook.js', import.meta.url, {
    data: { log: process.env.ENVDATA_RESOLVE_LOG },
  });
}
