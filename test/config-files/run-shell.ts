import { execFile } from 'node:child_process';

export interface ShellResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` with `sh -c` in `cwd`, as a container's `entrypoint: ['sh', '-c']` would. */
export function runShell(
  script: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string },
): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'sh',
      ['-c', script],
      { cwd: options.cwd, env: options.env },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    // A script that exits before reading its input closes the pipe: that is its answer, not ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.stdin);
  });
}
