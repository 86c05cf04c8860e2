import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SimulatorStats } from '../../src/simulator/stats/simulator-stats.js';

const BIN = fileURLToPath(new URL('../../bin/envdata.js', import.meta.url));

/**
 * `envdata simulate` in a process of its own, as the service is: its CPU is not the bench's, and
 * its rate windows and counts start afresh with each one.
 */
export interface SimulatorProcess {
  readonly url: string;
  /** What it has served so far (`GET /__admin/stats`). */
  stats(): Promise<SimulatorStats>;
  /** SIGTERM, and waits for it to exit; nothing when it has already. */
  stop(): Promise<void>;
}

/** Starts one on a free port; `env` adds ENVDATA_SIM_* settings. */
export async function startSimulatorProcess(
  env: Readonly<Record<string, string>> = {},
): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, [BIN, 'simulate', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  // A bench that fails after this leaves no simulator behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const url = /listening at (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) {
    child.kill('SIGKILL');
    throw new Error(`the simulator did not start: ${line}`);
  }
  return {
    url,
    async stats() {
      return (await (await fetch(`${url}/__admin/stats`)).json()) as SimulatorStats;
    },
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
