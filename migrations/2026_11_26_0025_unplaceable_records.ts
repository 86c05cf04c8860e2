import { sql, type Kysely } from 'kysely';

/**
 * Records the service sent that have no readable hour (an empty record, an unreadable stamp) are
 * quarantined without `observed_at`: "unplaceable". A run that has any is not clean, and
 * `envdata status RUN` lists them, so `runProgress` counts them on every poll of `--wait`: this
 * partial index keeps that a lookup of the run's few unplaceable entries, not a scan of the
 * quarantine.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index quarantine_unplaceable on envdata.quarantine (run_id)
      where observed_at is null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists envdata.quarantine_unplaceable`.execute(db);
}
