import { sql, type Kysely } from 'kysely';

/**
 * Registering many locations in one transaction takes one lock, not one a name.
 *
 * `location_key_is_free` (0023) serialised writers of a name or alias key with an advisory lock
 * on that key, held to the commit: a transaction registering N locations held N locks (2N with
 * aliases), each an entry of the server's shared lock table, which holds about
 * `max_locks_per_transaction` × (`max_connections` + background processes) entries for every
 * session together (some 8,000 on stock settings). An import of 60,000 rows failed with "out of
 * shared memory", and while it filled the table any other session taking a lock could fail the
 * same way.
 *
 * It now takes one advisory lock for every key, the same for every row: a transaction takes it
 * at its first name or alias and holds it to its commit; taking it again in the same transaction
 * only counts up in the backend's own memory, so the lock table holds one entry however many
 * rows are written. The guarantee is the one 0023 gave (the race it closes: a name written by
 * one transaction and an alias reading alike written by another, neither seeing the other's
 * uncommitted row): a writer waits for any other transaction writing names or aliases to end,
 * then its check reads what that one committed. Writers of different keys now wait for each
 * other too; registering locations is rare, and a wait, not a failure.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function envdata.location_key_is_free() returns trigger language plpgsql as $$
    declare
      k text;
      holder integer;
    begin
      -- One lock for all keys: the lock table gets one entry per transaction, not one per row.
      perform pg_advisory_xact_lock(hashtextextended('envdata.location_key', 0));
      -- Each branch reads only its own table's column: a statement is planned when first run.
      if tg_table_name = 'location' then
        k := new.name_key;
        select location_id into holder from envdata.location_alias where alias_key = k;
      else
        k := new.alias_key;
        select location_id into holder from envdata.location where name_key = k;
      end if;
      if holder is not null then
        raise unique_violation using
          message = format('location name or alias key %L is taken by location %s', k, holder),
          detail = format('Key %L is taken by location %s.', k, holder);
      end if;
      return new;
    end $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function envdata.location_key_is_free() returns trigger language plpgsql as $$
    declare
      k text;
      holder integer;
    begin
      -- Each branch reads only its own table's column: a statement is planned when first run.
      if tg_table_name = 'location' then
        k := new.name_key;
        perform pg_advisory_xact_lock(hashtextextended('envdata.location_key ' || k, 0));
        select location_id into holder from envdata.location_alias where alias_key = k;
      else
        k := new.alias_key;
        perform pg_advisory_xact_lock(hashtextextended('envdata.location_key ' || k, 0));
        select location_id into holder from envdata.location where name_key = k;
      end if;
      if holder is not null then
        raise unique_violation using
          message = format('location name or alias key %L is taken by location %s', k, holder),
          detail = format('Key %L is taken by location %s.', k, holder);
      end if;
      return new;
    end $$;
  `.execute(db);
}
