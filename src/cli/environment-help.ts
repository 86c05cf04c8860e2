import { ENVIRONMENT_VARIABLES } from '../config/environment-variables.js';

/** The environment variables as a help section: name, default and what it does. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT_VARIABLES.map((v) => v.name.length));
  const lines = ENVIRONMENT_VARIABLES.map((v) => {
    const fallback = v.default === undefined ? '' : ` [default: ${v.default}]`;
    return `  ${v.name.padEnd(width)}  ${v.description}${fallback}`;
  });
  return `\nEnvironment variables (also read from the environment only, never from files):\n${lines.join('\n')}\n`;
}
