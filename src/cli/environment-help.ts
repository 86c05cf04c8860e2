import { ENV_EXAMPLE_SECTIONS } from './env-example-sections.js';
import { formatRange } from '../config/format-range.js';
import {
  ENVIRONMENT_VARIABLES,
  type EnvironmentVariable,
} from '../config/environment-variables.js';

/** The environment variables as help sections: name, default and what it does. */
export function environmentHelp(): string {
  const sections = [
    {
      title: 'Environment variables',
      variables: ENVIRONMENT_VARIABLES as readonly EnvironmentVariable[],
    },
    ...ENV_EXAMPLE_SECTIONS.map((s) => ({
      ...s,
      title: `Environment variables of the ${s.title}`,
    })),
  ];
  const width = Math.max(...sections.flatMap((s) => s.variables.map((v) => v.name.length)));
  return sections
    .map(({ title, variables }) => {
      const lines = variables.map((v) => {
        const fallback = v.default === undefined ? '' : ` [default: ${v.default}]`;
        const allowed = v.range === undefined ? '' : ` [allowed: ${formatRange(v.range)}]`;
        return `  ${v.name.padEnd(width)}  ${v.description}${fallback}${allowed}`;
      });
      return `\n${title}:\n${lines.join('\n')}\n`;
    })
    .join('');
}
