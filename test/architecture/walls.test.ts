import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { LAYERS, wallConfigs } from '../../eslint.walls.js';

/**
 * The walls of eslint.walls.js and eslint.config.js, checked on code that crosses them: each
 * snippet is linted as if it were the named file, and must fail with the rule that keeps that
 * wall (and pass once the offending line is gone).
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function lint(filePath: string, code: string): Promise<ESLint.LintResult['messages']> {
  const [result] = await eslint.lintText(code, { filePath });
  return result?.messages ?? [];
}

async function rulesBroken(filePath: string, code: string): Promise<string[]> {
  return (await lint(filePath, code)).map((m) => m.ruleId ?? m.message);
}

/** The parts of `src/` a part's config refuses, read back from the patterns it was given. */
function refusedBy(part: string): string[] {
  const config = wallConfigs().find(
    (c) => c.files.includes(`src/${part}/**/*.ts`) || c.files.includes(`src/${part}`),
  );
  const [, { patterns }] = config!.rules['no-restricted-imports'] as [
    string,
    { patterns: { regex: string }[] },
  ];
  return LAYERS.flat().filter((other) => {
    const specifier = other.endsWith('.ts')
      ? `../${other.replace(/\.ts$/, '.js')}`
      : `../${other}/x.js`;
    return patterns.some(({ regex }) => new RegExp(regex).test(specifier));
  });
}

describe('the layers of src/ (LAYERS in eslint.walls.js)', () => {
  const parts = LAYERS.flat();

  it('place every folder of src/ and its two files once', () => {
    const entries = readdirSync('src', { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
      .map((e) => e.name);
    expect([...parts].sort()).toEqual(entries.sort());
    expect(new Set(parts).size).toBe(parts.length);
  });

  it('let no two parts import each other: of every pair, one refuses the other', () => {
    const refused = new Map(parts.map((part) => [part, refusedBy(part)]));
    const bothOpen = parts.flatMap((a) =>
      parts
        .filter((b) => a < b && !refused.get(a)!.includes(b) && !refused.get(b)!.includes(a))
        .map((b) => `${a} ↔ ${b}`),
    );
    expect(bothOpen).toEqual([]);
    expect(refusedBy('cli')).toEqual([]);
    expect(refusedBy('types.ts')).toEqual(parts.filter((p) => p !== 'types.ts'));
  });

  it('refuse an upward import naming the folders and the layer order', async () => {
    const [message] = await lint(
      'src/warehouse/probe.ts',
      "import { runCli } from '../cli/run-cli.js';\nexport const r = runCli;\n",
    );
    expect(message?.ruleId).toBe('no-restricted-imports');
    expect(message?.message).toContain('src/warehouse/ may not import src/cli/');
    expect(message?.message).toContain('types.ts < errors, windows < config');
  });

  it('refuse an import within a layer', async () => {
    const [message] = await lint(
      'src/service/probe.ts',
      "import type { Database } from '../warehouse/schema.js';\nexport type D = Database;\n",
    );
    expect(message?.message).toContain(
      'src/service/ may not import src/warehouse/: both are in layer',
    );
  });
});

describe('the walls between src/ folders', () => {
  it.each([
    [
      'the warehouse parsing a payload',
      'src/warehouse/probe.ts',
      "import { parseWeatherBody } from '../service/parse-weather-body.js';\nexport const p = parseWeatherBody;\n",
    ],
    [
      'the service reaching storage',
      'src/service/probe.ts',
      "import { claimChunk } from '../ledger/claim-chunk.js';\nexport const c = claimChunk;\n",
    ],
    [
      'config depending on the simulator',
      'src/config/probe.ts',
      "import { DEMO_API_KEY } from '../simulator/simulator-options.js';\nexport const k = DEMO_API_KEY;\n",
    ],
    [
      'a use case taking the whole App',
      'src/runs/probe.ts',
      "import type { App } from '../app.js';\nexport type A = App;\n",
    ],
    [
      'the product importing a tool',
      'src/cli/probe.ts',
      "import { JSON_OUTPUTS } from '../../tools/json-output/json-outputs.js';\nexport const o = JSON_OUTPUTS;\n",
    ],
    [
      'a tool importing a test',
      'tools/json-output/probe.ts',
      "import { useBackfillFixture } from '../../test/harness/backfill-fixture.js';\nexport const f = useBackfillFixture;\n",
    ],
    [
      'the product importing a test',
      'src/ledger/probe.ts',
      "import { useBackfillFixture } from '../../test/harness/backfill-fixture.js';\nexport const f = useBackfillFixture;\n",
    ],
  ])('refuses %s', async (_what, filePath, code) => {
    expect(await rulesBroken(filePath, code)).toContain('no-restricted-imports');
    // The same file without the import is clean: the wall, not the snippet, is what failed.
    const withoutImport = code
      .split('\n')
      .slice(1)
      .join('\n')
      .replace(/= \w+;/, '= 1;');
    expect(await rulesBroken(filePath, withoutImport)).toEqual([]);
  });

  it('lets a part import from a lower layer', async () => {
    const code =
      "import { claimChunk } from '../ledger/claim-chunk.js';\nexport const c = claimChunk;\n";
    expect(await rulesBroken('src/ingest/probe.ts', code)).toEqual([]);
  });

  it('keeps SQL out of the CLI and the environment inside src/config and the CLI', async () => {
    const query =
      "import type { Kysely } from 'kysely';\nexport const q = (db: Kysely<never>) => db.selectFrom('location' as never);\n";
    expect(await rulesBroken('src/cli/probe.ts', query)).toContain('no-restricted-syntax');
    expect(
      await rulesBroken(
        'src/cli/probe.ts',
        "import { sql } from 'kysely';\nexport const s = sql;\n",
      ),
    ).toContain('@typescript-eslint/no-restricted-imports');
    const env = 'export const url = process.env.DATABASE_URL;\n';
    expect(await rulesBroken('src/ledger/probe.ts', env)).toContain('no-restricted-properties');
    expect(await rulesBroken('src/config/probe.ts', env)).toEqual([]);
  });
});
