import { spawn } from 'node:child_process';
import type { ServerUser } from './server-user.js';

export interface ToolResult {
  readonly code: number | null;
  /** Standard output and error, interleaved as they came. */
  readonly output: string;
}

/**
 * Runs one PostgreSQL program (`initdb`, `pg_ctl`) as the server's user and waits for it to exit.
 * Messages are English (`LC_ALL=C`) so that a log line can be shown as it is; nothing of the
 * caller's environment reaches it. `pg_ctl start` puts the server in a session of its own
 * (`setsid`), so Ctrl-C in the terminal that started it does not reach it.
 */
export function runPostgresTool(
  program: string,
  args: readonly string[],
  user: ServerUser,
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      uid: user.uid,
      gid: user.gid,
      env: { LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => (output += chunk.toString('utf8'));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
