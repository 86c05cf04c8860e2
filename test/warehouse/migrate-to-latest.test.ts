import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { withDatabase } from '../../src/warehouse/database-url.js';
import { ensureDatabase } from '../../src/warehouse/ensure-database.js';
import { pendingMigrations } from '../../src/warehouse/migrate-to-latest.js';
import { prepareWarehouse } from '../../src/warehouse/prepare-warehouse.js';
import '../harness/test-services.js';

const services = inject('services');
const created: string[] = [];

function freshDatabaseUrl(): string {
  const name = `${services.runTag}_m${randomBytes(3).toString('hex')}`;
  created.push(name);
  return withDatabase(services.postgresAdminUrl, name);
}

afterAll(async () => {
  const admin = new pg.Client({ connectionString: services.postgresAdminUrl });
  await admin.connect();
  for (const name of created) {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  }
  await admin.end();
});

describe('prepareWarehouse (envdata migrate)', () => {
  it('creates the missing database and applies every migration', async () => {
    const app = createApp(
      configFromDefaults({ DATABASE_URL: freshDatabaseUrl(), LOG_LEVEL: 'silent' }),
    );
    try {
      const outcome = await prepareWarehouse(app);
      expect(outcome.createdDatabase).toBe(true);
      expect(outcome.applied.length).toBeGreaterThan(0);
      expect(await pendingMigrations(app.db)).toEqual([]);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from information_schema.schemata
        where schema_name in ('envdata', 'analytics')`.execute(app.db);
      expect(rows[0]?.n).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('is safe when several processes create and migrate at once', async () => {
    const url = freshDatabaseUrl();
    const apps = [1, 2, 3, 4].map(() =>
      createApp(configFromDefaults({ DATABASE_URL: url, LOG_LEVEL: 'silent' })),
    );
    try {
      const outcomes = await Promise.all(apps.map((app) => prepareWarehouse(app)));
      expect(outcomes.filter((o) => o.createdDatabase)).toHaveLength(1);
      const appliedTotal = outcomes.reduce((n, o) => n + o.applied.length, 0);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from public.envdata_migration`.execute(apps[0]!.db);
      // Every migration ran exactly once, whichever process ran it.
      expect(appliedTotal).toBe(rows[0]?.n);
      expect(new Set(outcomes.map((o) => o.latest)).size).toBe(1);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });

  it('is a no-op on an up-to-date database', async () => {
    const url = freshDatabaseUrl();
    const app = createApp(configFromDefaults({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
    try {
      await prepareWarehouse(app);
      const again = await prepareWarehouse(app);
      expect(again).toMatchObject({ createdDatabase: false, applied: [] });
    } finally {
      await app.close();
    }
  });

  it('names the URL, masks the password and says how to start Postgres when it is down', async () => {
    const error = await ensureDatabase('postgres://me:hunter2@127.0.0.1:1/x').catch(
      (e: unknown) => e,
    );
    expect(isEnvdataError(error) && error.code).toBe('DATABASE_UNAVAILABLE');
    const message = (error as Error).message;
    expect(message).toContain('postgres://me:***@127.0.0.1:1/x');
    expect(message).not.toContain('hunter2');
    expect(message).toMatch(/start Postgres/);
  });
});
