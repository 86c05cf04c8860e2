import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../src/logging/create-logger.js';
import { createDatabase } from '../src/warehouse/create-database.js';
import { maskUrl, withDatabase } from '../src/warehouse/database-url.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import {
  renderSchemaSnapshot,
  SCHEMA_SNAPSHOT_FILE,
} from '../tools/schema-snapshot/render-schema-snapshot.js';

/**
 * `npm run schema:snapshot`: migrates a scratch database from nothing, writes its description to
 * migrations/schema.snapshot.sql and drops it. Uses the Postgres the tests use: TEST_DATABASE_URL
 * (a superuser URL: the migrations create the role envdata_bi), else the local default.
 */
const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const scratch = `envdata_schema_snapshot_${randomBytes(4).toString('hex')}`;
const relativeFile = path.relative(process.cwd(), SCHEMA_SNAPSHOT_FILE);

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `Postgres at ${maskUrl(serverUrl)} did not answer (${(error as Error).message}): start it ` +
        '(see docs/services.md) or set TEST_DATABASE_URL to a superuser URL',
      { cause: error },
    );
  }
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ level: 'warn', format: 'json' });
  await admin(`create database ${pg.escapeIdentifier(scratch)}`);
  try {
    const db = createDatabase({ url: withDatabase(serverUrl, scratch), poolMax: 1, logger });
    let snapshot: string;
    let latest: string | undefined;
    try {
      ({ latest } = await migrateToLatest(db, logger));
      snapshot = await renderSchemaSnapshot(db);
    } finally {
      await db.destroy();
    }
    const before = existsSync(SCHEMA_SNAPSHOT_FILE)
      ? readFileSync(SCHEMA_SNAPSHOT_FILE, 'utf8')
      : undefined;
    if (before === snapshot) {
      console.log(`${relativeFile} is up to date (migrations at ${latest ?? 'none'})`);
      return;
    }
    writeFileSync(SCHEMA_SNAPSHOT_FILE, snapshot);
    console.log(
      `${relativeFile} ${before === undefined ? 'written' : 'updated'} (migrations at ${latest ?? 'none'}): ` +
        `review it with \`git diff ${relativeFile}\` and commit it with your migration`,
    );
  } finally {
    await admin(`drop database if exists ${pg.escapeIdentifier(scratch)} with (force)`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
