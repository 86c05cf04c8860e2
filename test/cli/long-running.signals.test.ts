import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { pollUntil } from '../harness/poll-until.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const env = useTestEnvironment();
const SHUTDOWN_TIMEOUT_MS = 3_000;
const children: RunningEnvdata[] = [];

afterEach(() => {
  for (const c of children.splice(0)) {
    if (c.child.pid !== undefined && processGroup(c.child.pid).length > 0) {
      process.kill(-c.child.pid, 'SIGKILL');
    }
  }
});

/** The command docs/commands.md tells operators to start `envdata COMMAND` with, as argv. */
function documentedCommand(command: string): string[] {
  const commands = readFileSync(new URL('docs/commands.md', `file://${ROOT}`), 'utf8');
  const line = commands
    .split('\n')
    .find((l) =>
      new RegExp(`^(node|npx|\\S*envdata\\S*) .*\\benvdata(\\.js)? ${command}\\b`).test(l),
    );
  if (!line) throw new Error(`docs/commands.md shows no way to start \`envdata ${command}\``);
  return line.replace(/#.*$/, '').trim().split(/\s+/);
}

/** The pids of the processes still in process group `pgid` (Linux /proc). */
function processGroup(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command name (which may hold spaces): state ppid pgrp …
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return members;
}

describe('a long-running command started the way docs/commands.md shows', () => {
  it.each(['worker', 'scheduler'])(
    '`%s` exits cleanly on SIGTERM to its pid, leaving no process behind',
    async (command) => {
      const argv = documentedCommand(command);
      // Not npx: it runs its command under a shell that does not pass SIGTERM on.
      expect(argv[0]).not.toBe('npx');
      const [file, ...args] = argv;
      const running = startEnvdata(
        [],
        // On the file's queue backend (cliEnv): the postgres leg starts them without a Redis.
        env.cliEnv({
          ENVDATA_API_KEY: DEMO_API_KEY,
          ENVDATA_BASE_URL: 'http://127.0.0.1:1',
          ENVDATA_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
          LOG_FORMAT: 'json',
        }),
        // Its own process group, as under a supervisor: the signal goes to this pid only.
        {
          cwd: ROOT,
          detached: true,
          command: [file === 'node' ? process.execPath : file!, ...args],
        },
      );
      children.push(running);
      await running.waitFor(/"msg":"(worker started|nightly sync scheduled)/);
      const pid = running.child.pid!;

      const signalled = Date.now();
      process.kill(pid, 'SIGTERM');
      const { code, signal } = await running.exited;
      expect({ code, signal }, running.stderr()).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThanOrEqual(SHUTDOWN_TIMEOUT_MS + 1_000);
      // Nothing of the tree is left: no orphaned worker.
      await pollUntil(
        async () => {
          const left = processGroup(pid);
          return left.length === 0 ? { done: undefined } : { last: left };
        },
        {
          timeoutMs: 1_000,
          describe: (left) => `processes left in the group: ${String(left)}`,
        },
      );
    },
    60_000,
  );
});
