import { sql, type Kysely } from 'kysely';

/**
 * A chunk whose hours were all settled by the time a worker claimed it (landed meanwhile, by
 * another run say, or holes still within their recheck interval) is marked done without a call:
 * its outcome is `settled`, with 0 calls and 0 rows. A run that re-reads what is covered (a
 * sync's lookback, `backfill --recheck-no-data`) has gaps marked `refetch`: the claim finds
 * them through a small partial index, since a run fully materialized has no open gap left.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.chunk drop constraint chunk_outcome_check,
      add constraint chunk_outcome_check
        check (outcome in ('rows', 'no_data', 'not_covered', 'settled'));
    create index run_gap_refetch on envdata.run_gap (run_id) where refetch;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index envdata.run_gap_refetch;
    update envdata.chunk set outcome = null where outcome = 'settled';
    alter table envdata.chunk drop constraint chunk_outcome_check,
      add constraint chunk_outcome_check
        check (outcome in ('rows', 'no_data', 'not_covered'));
  `.execute(db);
}
