import { execFile } from 'node:child_process';
import { requireTool } from '../harness/system-tools.js';

export interface PromtoolResult {
  readonly code: number;
  readonly output: string;
}

/**
 * Runs Debian's `promtool` (package `prometheus`) with `args`. A missing promtool fails with
 * how to install it; the tests that call this say so with `needsTools('promtool')`, which skips
 * them outside CI.
 */
export function promtool(args: readonly string[], cwd?: string): Promise<PromtoolResult> {
  const program = requireTool('promtool');
  return new Promise((resolve, reject) => {
    execFile(program, args, { cwd }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
      } else {
        resolve({ code: error ? Number(error.code) : 0, output: stdout + stderr });
      }
    });
  });
}
