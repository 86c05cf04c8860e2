import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JSON_OUTPUTS } from '../src/cli/json/json-outputs.js';
import {
  JSON_OUTPUT_DOC_FILE,
  JSON_SCHEMA_DIR,
  jsonSchemaFileName,
  renderJsonOutputDoc,
  renderJsonSchemaFile,
} from '../src/cli/json/render-json-output-doc.js';

/**
 * `npm run docs:json`: writes docs/json-output.md and docs/json-schemas/KIND.schema.json from the
 * zod schemas of the `--json` documents (src/cli/json/), and removes schema files no document
 * has any more. test/cli/json-output-docs.test.ts fails while they differ from the code.
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
console.log(
  `wrote ${path.relative(process.cwd(), JSON_OUTPUT_DOC_FILE)} and ${JSON_OUTPUTS.length} schema(s) in ${path.relative(process.cwd(), JSON_SCHEMA_DIR)}`,
);
