import type { ChildProcess } from 'node:child_process';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import type { HostLab, LabHost } from './host-lab.js';

/** A real `envdata worker` process running inside one host of the lab. */
export interface HostWorker {
  readonly host: LabHost;
  readonly child: ChildProcess;
  /** What it printed so far (stdout and stderr, JSON log lines), line by line. */
  readonly lines: string[];
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it exited. */
  stop(graceMs: number): Promise<void>;
}

/** Starts `envdata worker --concurrency N` in `host`'s namespace with exactly `env` (and PATH, HOME). */
export function startHostWorker(
  lab: HostLab,
  host: LabHost,
  concurrency: number,
  env: Record<string, string>,
): HostWorker {
  const child = lab.spawnOn(
    host,
    process.execPath,
    [ENVDATA_BIN, 'worker', '--concurrency', String(concurrency)],
    { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  );
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    host,
    child,
    lines,
    async stop(graceMs) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
