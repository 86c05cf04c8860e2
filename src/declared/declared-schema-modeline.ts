/** Where the JSON Schema of `envdata.yaml` is published, from the package's root (npm ships it). */
export const DECLARED_SCHEMA_FILE = 'docs/envdata.schema.json';

/**
 * The first line of an `envdata.yaml` (README, docs/envdata.md, `export-config`): the YAML
 * language server reads the schema from envdata installed beside the file (`npm install
 * envdata`), a path relative to the file that resolves in any project using envdata.
 */
export const DECLARED_SCHEMA_MODELINE = `# yaml-language-server: $schema=node_modules/envdata/${DECLARED_SCHEMA_FILE}`;
