import { execFile } from 'node:child_process';

export interface PromtoolResult {
  readonly code: number;
  readonly output: string;
}

/**
 * Runs Debian's `promtool` (package `prometheus`) with `args`. A missing promtool fails with
 * how to install it: these checks never skip.
 */
export function promtool(args: readonly string[], cwd?: string): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    execFile('promtool', args, { cwd }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(
          new Error(
            'promtool is not installed: `apt-get install prometheus` (Debian) puts it in /usr/bin/promtool',
          ),
        );
      } else if (error && typeof error.code !== 'number') {
        reject(error);
      } else {
        resolve({ code: error ? Number(error.code) : 0, output: stdout + stderr });
      }
    });
  });
}
