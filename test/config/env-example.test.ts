import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderEnvExample } from '../../tools/env-example/render-env-example.js';
import { ENV_EXAMPLE_SECTIONS } from '../../src/cli/env-example-sections.js';

describe('.env.example', () => {
  it('documents every variable the code reads (regenerate with `npm run env:example`)', () => {
    const committed = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    expect(committed).toBe(renderEnvExample(ENV_EXAMPLE_SECTIONS));
  });
});
