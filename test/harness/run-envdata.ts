import { fileURLToPath } from 'node:url';
import { runCommand, type CommandResult } from './run-command.js';
import { childEnvironment } from './child-environment.js';

export const ENVDATA_BIN = fileURLToPath(new URL('../../bin/envdata.js', import.meta.url));

export type EnvdataResult = CommandResult;

/**
 * Runs `envdata ARGS…` as a separate process, as a user would, with exactly `env` on top of a
 * minimal environment (PATH, HOME, TMPDIR: `childEnvironment`): nothing leaks in from the
 * developer's shell.
 */
export function runEnvdata(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<EnvdataResult> {
  return runCommand(process.execPath, [ENVDATA_BIN, ...args], {
    env: childEnvironment(env),
  });
}
