import { sql, type Kysely } from 'kysely';

/** Schema `envdata` holds the warehouse and the ledger; `analytics` the BI views. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create schema if not exists envdata`.execute(db);
  await sql`create schema if not exists analytics`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop schema if exists analytics cascade`.execute(db);
  await sql`drop schema if exists envdata cascade`.execute(db);
}
