import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOC,
  CONFIG_DOC_COMMAND,
  renderConfigDoc,
} from '../../scripts/lib/render-config-doc.js';
import { ENVIRONMENT_VARIABLES } from '../../src/config/environment-variables.js';

describe(`docs/configuration.md (regenerate it: ${CONFIG_DOC_COMMAND})`, () => {
  it('is what the environment table generates', () => {
    expect(readFileSync(CONFIG_DOC, 'utf8')).toBe(renderConfigDoc());
  });

  it('lists every variable envdata reads', () => {
    const page = renderConfigDoc();
    for (const v of ENVIRONMENT_VARIABLES) expect(page).toContain(`| \`${v.name}\` |`);
  });
});
