import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JSON_OUTPUTS } from '../../tools/json-output/json-outputs.js';
import {
  JSON_OUTPUT_DOC_FILE,
  JSON_OUTPUT_DOCS_COMMAND,
  JSON_SCHEMA_DIR,
  jsonSchemaFileName,
  renderJsonOutputDoc,
  renderJsonSchemaFile,
} from '../../tools/json-output/render-json-output-doc.js';
import { unifiedDiff } from '../harness/unified-diff.js';

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** Fails with the difference and the command that regenerates `file`, unless it is `expected`. */
function expectGenerated(file: string, expected: string): void {
  const committed = read(file);
  if (committed === expected) return;
  const name = path.relative(process.cwd(), file);
  expect.fail(
    [
      `${name} does not match the zod schemas of the --json documents (src/cli/json/).`,
      `Regenerate it and commit it with the change: ${JSON_OUTPUT_DOCS_COMMAND}`,
      '',
      unifiedDiff(committed, expected, { before: `${name} (committed)`, after: 'generated' }),
    ].join('\n'),
  );
}

describe(`the --json documentation (regenerate: ${JSON_OUTPUT_DOCS_COMMAND})`, () => {
  it('docs/json-output.md is what the schemas and examples generate', () => {
    expectGenerated(JSON_OUTPUT_DOC_FILE, renderJsonOutputDoc(JSON_OUTPUTS));
  });

  it.each(JSON_OUTPUTS.map((o) => [jsonSchemaFileName(o), o] as const))(
    'docs/json-schemas/%s is the JSON Schema the zod schema generates',
    (name, output) => {
      expectGenerated(path.join(JSON_SCHEMA_DIR, name), renderJsonSchemaFile(output));
    },
  );

  it('docs/json-schemas/ holds no schema of a document that is gone', () => {
    const files = readdirSync(JSON_SCHEMA_DIR).filter((f) => f.endsWith('.schema.json'));
    expect(files.sort()).toEqual(JSON_OUTPUTS.map(jsonSchemaFileName).sort());
  });

  it.each(JSON_OUTPUTS.map((o) => [o.command, o] as const))(
    'the example of `%s` is a valid document with every key documented',
    (_command, output) => {
      const parsed = output.schema.safeParse(output.example);
      expect(parsed.error).toBeUndefined();
      expect(parsed.data).toEqual(output.example);
    },
  );

  it('every field of every document is described', () => {
    const undescribed = [
      ...renderJsonOutputDoc(JSON_OUTPUTS).matchAll(/^\| `([^`]+)` .* \| {2}\|$/gm),
    ];
    expect(undescribed.map((m) => m[1])).toEqual([]);
  });

  it('the README links it', () => {
    expect(read(path.join(process.cwd(), 'README.md'))).toContain('(docs/json-output.md)');
  });
});
