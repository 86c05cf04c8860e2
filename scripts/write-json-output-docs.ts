import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JSON_OUTPUTS } from '../tools/json-output/json-outputs.js';
import { DECLARED_SCHEMA_FILE } from '../src/declared/declared-schema-modeline.js';
import { renderDeclaredSchema } from '../tools/declared-schema/render-declared-schema.js';
import {
  JSON_OUTPUT_DOC_FILE,
  JSON_SCHEMA_DIR,
  jsonSchemaFileName,
  renderJsonOutputDoc,
  renderJsonSchemaFile,
} from '../tools/json-output/render-json-output-doc.js';

/**
 * `npm run docs:json`: writes docs/json-output.md and docs/json-schemas/KIND.schema.json from the
 * zod schemas of the `--json` documents (src/cli/json/), and removes schema files no document
 * has any more; and docs/envdata.schema.json, the JSON Schema of `envdata.yaml`.
 * test/cli/json-output-docs.test.ts and test/declared/declared-schema-docs.test.ts fail while
 * they differ from the code.
 */
mkdirSync(JSON_SCHEMA_DIR, { recursive: true });
const wanted = new Set(JSON_OUTPUTS.map(jsonSchemaFileName));
for (const name of readdirSync(JSON_SCHEMA_DIR)) {
  if (name.endsWith('.schema.json') && !wanted.has(name)) rmSync(path.join(JSON_SCHEMA_DIR, name));
}
for (const output of JSON_OUTPUTS) {
  writeFileSync(
    path.join(JSON_SCHEMA_DIR, jsonSchemaFileName(output)),
    renderJsonSchemaFile(output),
  );
}
writeFileSync(JSON_OUTPUT_DOC_FILE, renderJsonOutputDoc(JSON_OUTPUTS));
writeFileSync(DECLARED_SCHEMA_FILE, renderDeclaredSchema());
console.log(
  `wrote ${path.relative(process.cwd(), JSON_OUTPUT_DOC_FILE)}, ${JSON_OUTPUTS.length} schema(s) in ${path.relative(process.cwd(), JSON_SCHEMA_DIR)} and ${DECLARED_SCHEMA_FILE}`,
);
