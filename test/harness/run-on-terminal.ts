import { spawn } from 'node:child_process';
import { pollUntil } from './poll-until.js';
import { ENVDATA_BIN } from './run-envdata.js';
import { childEnvironment } from './child-environment.js';

export interface TerminalRun {
  /** Types into the terminal (end a line with `\r`). */
  type(text: string): void;
  /** Everything the terminal has shown so far. */
  screen(): string;
  /** Resolves when `text` is on the screen. */
  waitFor(text: string): Promise<true>;
  readonly exited: Promise<number | null>;
}

/**
 * Runs `envdata ARGS` on a pseudo-terminal (`script`), as a person at a terminal would: standard
 * input, output and error are the terminal, so prompts, echo and colours behave as they do there.
 */
export function runOnTerminal(args: readonly string[], env: Record<string, string>): TerminalRun {
  const command = [process.execPath, ENVDATA_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: childEnvironment({ TERM: 'dumb', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    type: (text) => child.stdin.write(text),
    screen: () => screen,
    waitFor: (text) =>
      pollUntil<true, string>(
        async () => (screen.includes(text) ? { done: true } : { last: screen }),
        { everyMs: 20, timeoutMs: 20_000, describe: (s) => `no "${text}" on the terminal: ${s}` },
      ),
    exited,
  };
}
