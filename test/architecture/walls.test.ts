import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The walls of eslint.walls.js and eslint.config.js, checked on code that crosses them: each
 * snippet is linted as if it were the named file, and must fail with the rule that keeps that
 * wall (and pass once the offending line is gone).
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function rulesBroken(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

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

  it('lets a part import what its row of the table allows', async () => {
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
