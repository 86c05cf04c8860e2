import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { afterAll } from 'vitest';
import { ENVDATA_BIN } from './run-envdata.js';
import { watchUntil } from './watch-until.js';
import { childEnvironment } from './child-environment.js';

export interface RunningEnvdata {
  readonly child: ChildProcess;
  /** Everything written so far. */
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the first match of `pattern` in standard output or error, once it is written. */
  waitFor(pattern: RegExp, options?: { timeoutMs?: number }): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `envdata ARGS…` (a long-running command) as its own process, as `runEnvdata` does,
 * and lets the test follow what it writes and when it exits. Waiting is on what the process
 * writes, never on a fixed delay.
 */
export function startEnvdata(
  args: readonly string[],
  env: Record<string, string> = {},
  options: Pick<SpawnOptions, 'cwd' | 'detached'> & { command?: readonly string[] } = {},
): RunningEnvdata {
  const [file, ...prefix] = options.command ?? [process.execPath, ENVDATA_BIN];
  const child = spawn(file!, [...prefix, ...args], {
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.detached !== undefined && { detached: options.detached }),
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  const changed = () => {
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    changed();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    changed();
  });
  // 'close' comes after the last output is read, unlike 'exit'.
  let closed = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      closed = true;
      resolve({ code, signal });
      changed();
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, { timeoutMs = 60_000 } = {}) {
      return watchUntil(
        watchers,
        () => {
          const match = pattern.exec(stdout) ?? pattern.exec(stderr);
          if (match) return match;
          if (closed) {
            throw new Error(
              `envdata ${args.join(' ')} exited before writing ${pattern}:\n${stderr}`,
            );
          }
          return undefined;
        },
        timeoutMs,
        () => new Error(`envdata ${args.join(' ')} did not write ${pattern} in time:\n${stderr}`),
      );
    },
  };
}

/**
 * `startEnvdata` for a test file: each process it starts that is still running when the file
 * ends is killed then (SIGKILL), whatever the test did.
 */
export function useEnvdataProcesses(): (
  args: readonly string[],
  env?: Record<string, string>,
) => RunningEnvdata {
  const started: RunningEnvdata[] = [];
  afterAll(async () => {
    for (const running of started) {
      if (running.child.exitCode !== null || running.child.signalCode !== null) continue;
      running.child.kill('SIGKILL');
      await running.exited;
    }
  });
  return (args, env) => {
    const running = startEnvdata(args, env);
    started.push(running);
    return running;
  };
}
