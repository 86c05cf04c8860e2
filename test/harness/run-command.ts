import { spawn, type ChildProcess } from 'node:child_process';

/** Commands started by `runCommand` that have not exited yet. */
const running = new Set<ChildProcess>();

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCommandOptions {
  /** Where it runs; the test runner's directory when absent. */
  readonly cwd?: string;
  /** Its whole environment. */
  readonly env: Record<string, string>;
  /** Run as this user and group (the test runs as root). */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Runs `program ARGS…` with exactly `env` (nothing of the test runner's environment, so no
 * `npm_config_*` of an outer `npm test` reaches an inner npm), and collects its output.
 */
export function runCommand(
  program: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      uid: options.uid,
      gid: options.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.on('exit', () => running.delete(child));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `result`'s output for an assertion message: what a failing command said. */
export function outputOf(result: CommandResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/**
 * Kills (SIGKILL) every command `runCommand` started that is still running, and returns how many.
 * A test that times out leaves its command running: vitest stops waiting, nothing stops the
 * process. test/harness/per-file-setup.ts calls this after each file, so none outlives it.
 */
export function killRunningCommands(): number {
  const left = [...running];
  for (const child of left) child.kill('SIGKILL');
  running.clear();
  return left.length;
}
