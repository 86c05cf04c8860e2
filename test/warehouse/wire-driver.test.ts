import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/warehouse/create-database.js';
import { MAX_PREPARED_PER_CONNECTION, named } from '../../src/warehouse/wire/index.js';
import type { Database } from '../../src/warehouse/schema.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const opened: Kysely<Database>[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
});

/** A pool of one connection on the test database, as the app makes it. */
function database(preparedStatements: boolean): Kysely<Database> {
  const db = createDatabase({
    url: wh.env.databaseUrl,
    poolMax: 1,
    preparedStatements,
    logger: createLogger({ level: 'silent', format: 'json' }),
  });
  opened.push(db);
  return db;
}

/** The statements prepared on the connection `db` runs on (a pool of one). */
async function preparedNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from pg_prepared_statements order by name`.execute(db);
  return rows.map((r) => r.name);
}

describe('the wire connection', () => {
  it('runs a named statement prepared under its name, parsed once per connection', async () => {
    const db = database(true);
    const twice = async (n: number) =>
      (await named('plus_one', sql<{ n: number }>`select ${n}::int + 1 as n`).execute(db)).rows[0]!
        .n;

    expect([await twice(1), await twice(41)]).toEqual([2, 42]);

    const names = await preparedNames(db);
    expect(names).toEqual(['envdata_plus_one']);
    // A statement without a name is not prepared.
    await sql`select ${1}::int`.execute(db);
    expect(await preparedNames(db)).toEqual(names);
  });

  it('runs a name met again with another text unnamed, and right', async () => {
    const db = database(true);
    const plus = (k: number) =>
      named('plus_k', sql<{ n: number }>`select 1 + ${sql.raw(String(k))} as n`).execute(db);

    expect([(await plus(1)).rows[0]!.n, (await plus(2)).rows[0]!.n]).toEqual([2, 3]);
    expect(await preparedNames(db)).toEqual(['envdata_plus_k']);
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    const db = database(false);
    await named('one', sql`select ${1}::int as n`).execute(db);
    expect(await preparedNames(db)).toEqual([]);
  });

  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} per connection; past them, named statements run unnamed`, async () => {
    const db = database(true);
    const texts = MAX_PREPARED_PER_CONNECTION + 6;
    for (let i = 0; i < texts; i++) {
      const { rows } = await named(
        `plus_${i}`,
        sql<{ n: number }>`select ${i}::int + ${sql.raw(String(i))} as n`,
      ).execute(db);
      expect(rows[0]!.n).toBe(2 * i);
    }
    expect(await preparedNames(db)).toHaveLength(MAX_PREPARED_PER_CONNECTION);
  });

  it("runs a transaction's statements inside it, and a failure rolls all back", async () => {
    const db = database(true);
    await sql`create table if not exists pg_client_probe (n int primary key)`.execute(db);

    const ids = await db.transaction().execute(async (trx) => {
      const first = await sql<{ id: string }>`select txid_current()::text as id`.execute(trx);
      await sql`insert into pg_client_probe values (1)`.execute(trx);
      const second = await sql<{ id: string }>`select txid_current()::text as id`.execute(trx);
      return [first.rows[0]!.id, second.rows[0]!.id];
    });
    expect(ids[0]).toBe(ids[1]);

    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into pg_client_probe values (2)`.execute(trx);
        await sql`insert into pg_client_probe values (1)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23505' });

    // The connection is back in the pool out of any transaction, and 2 was rolled back.
    const { rows } = await sql<{
      n: number;
      idle: boolean;
    }>`select (select count(*)::int from pg_client_probe) as n,
      txid_current_if_assigned() is null as idle`.execute(db);
    expect(rows[0]).toEqual({ n: 1, idle: true });
  });
});
