import { z } from 'zod';
import { declaredFileSchema } from './declared-file-schema.js';

/** Where the JSON Schema of `envdata.yaml` is published, from the package's root (npm ships it). */
export const DECLARED_SCHEMA_FILE = 'docs/envdata.schema.json';

/**
 * The first line of an `envdata.yaml` (README, docs/envdata.md, `export-config`): the YAML
 * language server reads the schema from envdata installed beside the file (`npm install
 * envdata`), a path relative to the file that resolves in any project using envdata.
 */
export const DECLARED_SCHEMA_MODELINE = `# yaml-language-server: $schema=node_modules/envdata/${DECLARED_SCHEMA_FILE}`;

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
