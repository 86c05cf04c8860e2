import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DECLARED_SCHEMA_FILE } from '../../src/declared/declared-schema-modeline.js';
import { renderDeclaredSchema } from '../../tools/declared-schema/render-declared-schema.js';

describe(`${DECLARED_SCHEMA_FILE} (regenerate: npm run docs:json)`, () => {
  it('is the JSON Schema the zod schema of envdata.yaml generates', () => {
    expect(readFileSync(DECLARED_SCHEMA_FILE, 'utf8')).toBe(renderDeclaredSchema());
  });

  it('forbids unknown keys, as envdata does', () => {
    const schema = JSON.parse(renderDeclaredSchema()) as { additionalProperties?: boolean };
    expect(schema.additionalProperties).toBe(false);
  });
});
