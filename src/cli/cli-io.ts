import type { Environment } from '../config/load-config.js';

/** What a CLI invocation reads and writes; tests pass their own. */
export interface CliIo {
  readonly env: Environment;
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export const processIo = (): CliIo => ({
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
