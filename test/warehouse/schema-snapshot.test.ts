import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/create-logger.js';
import { createDatabase } from '../../src/warehouse/create-database.js';
import { portableViewDefinition } from '../../tools/schema-snapshot/portable-view-definition.js';
import {
  renderSchemaSnapshot,
  SCHEMA_SNAPSHOT_COMMAND,
  SCHEMA_SNAPSHOT_FILE,
} from '../../tools/schema-snapshot/render-schema-snapshot.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useTestEnvironment } from '../harness/test-environment.js';
import { unifiedDiff } from '../harness/unified-diff.js';

// This file's database is a clone of the template the global setup migrated from nothing.
const env = useTestEnvironment();
const file = path.relative(process.cwd(), SCHEMA_SNAPSHOT_FILE);
let db: Kysely<Database>;

beforeAll(() => {
  // One connection, so that session settings made in a test apply to the next statement.
  db = createDatabase({
    url: env.databaseUrl,
    poolMax: 1,
    logger: createLogger({ level: 'silent', format: 'json' }),
  });
});

afterAll(async () => {
  await db.destroy();
});

describe(`the schema snapshot (${file})`, () => {
  it(`describes the schema the migrations build (regenerate: ${SCHEMA_SNAPSHOT_COMMAND})`, async () => {
    const migrated = await renderSchemaSnapshot(db);
    const committed = existsSync(SCHEMA_SNAPSHOT_FILE)
      ? readFileSync(SCHEMA_SNAPSHOT_FILE, 'utf8')
      : '';
    if (committed === migrated) return;
    expect.fail(
      [
        `${file} does not match a freshly migrated database.`,
        '',
        'If you changed the schema on purpose (a new migration), regenerate the snapshot and',
        'commit it with the migration:',
        '',
        `    ${SCHEMA_SNAPSHOT_COMMAND}`,
        '',
        'If not, a migration (or an edit to one that has landed) changed the schema. The',
        `difference (- ${file} as committed, + the migrated database):`,
        '',
        unifiedDiff(committed, migrated, {
          before: `${file} (committed)`,
          after: `${file} (freshly migrated database)`,
        }),
      ].join('\n'),
    );
  });

  it("is the same whatever the reader's session settings", async () => {
    const expected = await renderSchemaSnapshot(db);
    await sql`set search_path = analytics, envdata, public`.execute(db);
    await sql`set timezone = 'Pacific/Chatham'`.execute(db);
    await sql`set datestyle = 'SQL, DMY'`.execute(db);
    await sql`set intervalstyle = 'iso_8601'`.execute(db);
    await sql`set extra_float_digits = 0`.execute(db);
    try {
      expect(await renderSchemaSnapshot(db)).toBe(expected);
    } finally {
      await sql`reset all`.execute(db);
    }
  });

  it('prints a view of one relation qualified, as PostgreSQL 15 does, on any version', async () => {
    // PostgreSQL 16 prints this view's top level unqualified (`SELECT location_id, …`).
    await db.transaction().execute(async (trx) => {
      await sql`set local search_path = pg_catalog`.execute(trx);
      await sql`create view envdata.snapshot_probe as
        select location_id, name from envdata.location where name <> ''`.execute(trx);
      expect(await portableViewDefinition(trx, 'envdata.snapshot_probe')).toBe(
        [
          ' SELECT location.location_id,',
          '    location.name',
          '   FROM envdata.location',
          "  WHERE location.name <> ''::text;",
        ].join('\n'),
      );
      await sql`drop view envdata.snapshot_probe`.execute(trx);
    });
  });
});
