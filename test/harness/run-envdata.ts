import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ENVDATA_BIN = fileURLToPath(new URL('../../bin/envdata.js', import.meta.url));

export interface EnvdataResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `envdata ARGS…` as a separate process, as a user would, with exactly `env` on top of a
 * minimal environment (PATH, HOME): nothing leaks in from the developer's shell.
 */
export function runEnvdata(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<EnvdataResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENVDATA_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
