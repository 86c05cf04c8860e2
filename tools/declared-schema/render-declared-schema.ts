import { z } from 'zod';
import { declaredFileSchema } from '../../src/declared/declared-file-schema.js';

/**
 * The JSON Schema (draft 2020-12) of `envdata.yaml`, from its zod schema, as
 * docs/envdata.schema.json publishes it: an editor with the YAML language server completes and
 * checks the file through `# yaml-language-server: $schema=…`. Keys with a default are optional.
 */
export function renderDeclaredSchema(): string {
  const { $schema, ...rest } = z.toJSONSchema(declaredFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
  });
  const schema = { $schema, title: 'envdata.yaml', ...rest };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
