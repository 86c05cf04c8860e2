import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pollUntil } from './poll-until.js';
import { ENVDATA_BIN } from './run-envdata.js';
import { requireTool } from './system-tools.js';
import { childEnvironment } from './child-environment.js';

const exec = promisify(execFile);

export interface TerminalResult {
  readonly code: number;
  /** The lines a person sees in the terminal at the end, scrollback included, escapes removed. */
  readonly screen: readonly string[];
  /** Every byte the command wrote to the terminal, escape sequences included. */
  readonly raw: string;
}

/**
 * Runs `envdata ARGS…` in a real pseudo-terminal (a detached tmux session of `columns` × `rows`
 * on a tmux server of its own), with exactly `env` on top of PATH and HOME, and returns what the
 * terminal shows once it exited. The tmux server and its files are removed in every case.
 * Without tmux it throws how to install it (its tests: `needsTools('tmux')`).
 */
export async function runInTerminal(
  args: readonly string[],
  env: Record<string, string>,
  options: { columns?: number; rows?: number; timeoutMs?: number } = {},
): Promise<TerminalResult> {
  const program = requireTool('tmux');
  const dir = await mkdtemp(path.join(tmpdir(), 'envdata-terminal-'));
  // The server's socket lives in this directory: removed with it, whatever happens.
  const socket = path.join(dir, 'tmux');
  const rawFile = path.join(dir, 'raw');
  const tmux = (...tmuxArgs: string[]) =>
    exec(program, ['-S', socket, ...tmuxArgs], {
      // The server's environment is the panes' environment: nothing from the developer's shell.
      env: childEnvironment(),
    });
  const gate = `go-${randomBytes(4).toString('hex')}`;
  const command = [
    // Waits until the output is recorded, so not a byte is missed.
    `tmux -S ${quote(socket)} wait-for ${gate}`,
    [process.execPath, ENVDATA_BIN, ...args].map(quote).join(' '),
    'echo "envdata exited with $?"',
  ].join('; ');
  try {
    await tmux(
      'new-session',
      '-d',
      '-s',
      'envdata',
      '-x',
      String(options.columns ?? 200),
      '-y',
      String(options.rows ?? 50),
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      command,
    );
    await tmux('set-option', '-t', 'envdata', 'remain-on-exit', 'on');
    await tmux('set-option', '-t', 'envdata', 'history-limit', '10000');
    await tmux('pipe-pane', '-t', 'envdata', '-o', `cat >> ${quote(rawFile)}`);
    await tmux('wait-for', '-S', gate);
    const capture = async () =>
      (await tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', 'envdata')).stdout;
    const exited = /envdata exited with (\d+)/;
    const screen = await pollUntil<string, string>(
      async () => {
        const text = await capture();
        // The recording of the output may trail the screen by a moment: wait for both.
        const raw = await readFile(rawFile, 'utf8').catch(() => '');
        return exited.test(text) && exited.test(raw) ? { done: text } : { last: text };
      },
      {
        timeoutMs: options.timeoutMs ?? 60_000,
        everyMs: 100,
        describe: (last) => `envdata did not exit in the terminal; it shows:\n${last ?? ''}`,
      },
    );
    const lines = screen
      .replace(/\s+$/, '')
      .split('\n')
      .map((line) => line.trimEnd());
    const code = Number(exited.exec(screen)?.[1]);
    return { code, screen: lines, raw: await readFile(rawFile, 'utf8') };
  } finally {
    await tmux('kill-server').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
