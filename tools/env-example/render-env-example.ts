import {
  ENVIRONMENT_VARIABLES,
  type EnvironmentVariable,
} from '../../src/config/environment-variables.js';
import { formatRange } from '../../src/config/format-range.js';

/** The text of `.env.example`: every variable, its default and what it does. */
export function renderEnvExample(
  extra: readonly { title: string; variables: readonly EnvironmentVariable[] }[] = [],
): string {
  const sections: readonly { title: string; variables: readonly EnvironmentVariable[] }[] = [
    { title: 'envdata', variables: ENVIRONMENT_VARIABLES },
    ...extra,
  ];
  const out = [
    '# Every environment variable envdata reads. Copy to .env and export it, or set them in your',
    '# orchestrator. Commented-out lines show the default. Generated from',
    '# src/config/environment-variables.ts; test/config/env-example.test.ts keeps them in sync.',
  ];
  for (const section of sections) {
    out.push('', `# --- ${section.title} ---`);
    for (const v of section.variables) {
      out.push('', `# ${v.description}`);
      if (v.range !== undefined) out.push(`# Allowed: ${formatRange(v.range)}.`);
      out.push(v.default === undefined ? `# ${v.name}=` : `# ${v.name}=${v.default}`);
    }
  }
  return `${out.join('\n')}\n`;
}
