import { sql, type Kysely } from 'kysely';

/**
 * Location names are unique as people read them, and a location answers to the place text it
 * was registered by.
 *
 * - `location.name_key`: the name as compared (NFC, invisible characters removed, white space
 *   runs as one space, case-folded; `locationNameKey` in src/locations/location-name-key.ts),
 *   computed by envdata and unique. It replaces the unique index on `lower(name)`.
 * - `location_alias`: other texts a location answers to (the place text of `--place`, of an
 *   imported place row), each with its key.
 * - A key is unique across names and aliases: a trigger on each table refuses a key the other
 *   table holds, as a unique violation; an advisory lock on the key serialises concurrent writers.
 *
 * Existing rows get their keys computed here (a frozen copy of `locationNameKey`, as migrations
 * never import app code). Names registered earlier that read alike (`Ber\u200Blin` beside
 * `Berlin`, NFD beside NFC) do not fail the migration: the location with the lowest id keeps the
 * key, each later one gets its key followed by U+2060 and its id, which no name can produce
 * (U+2060 is removed from keys), so it is reached by `id:N` only until it is renamed or purged.
 * Stored names are not rewritten.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table envdata.location add column name_key text`.execute(db);
  const { rows } = await sql<{ location_id: number; name: string }>`
    select location_id, name from envdata.location order by location_id`.execute(db);
  const seen = new Set<string>();
  const ids: number[] = [];
  const keys: string[] = [];
  for (const row of rows) {
    const key = nameKey(row.name);
    ids.push(row.location_id);
    keys.push(seen.has(key) ? `${key}\u2060${row.location_id}` : key);
    seen.add(key);
  }
  await sql`
    update envdata.location l set name_key = k.key
    from unnest(${ids}::int[], ${keys}::text[]) as k(id, key)
    where l.location_id = k.id`.execute(db);
  await sql`
    alter table envdata.location alter column name_key set not null;
    drop index envdata.location_name_key;
    create unique index location_name_key on envdata.location (name_key);

    create table envdata.location_alias (
      alias_key text primary key,
      location_id integer not null references envdata.location (location_id) on delete cascade,
      alias text not null check (length(trim(alias)) > 0)
    );
    create index location_alias_location on envdata.location_alias (location_id);

    create function envdata.location_key_is_free() returns trigger language plpgsql as $$
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
    create trigger location_name_key_is_free
      before insert or update of name_key on envdata.location
      for each row execute function envdata.location_key_is_free();
    create trigger location_alias_key_is_free
      before insert or update of alias_key on envdata.location_alias
      for each row execute function envdata.location_key_is_free();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table if exists envdata.location_alias;
    drop trigger if exists location_name_key_is_free on envdata.location;
    drop function if exists envdata.location_key_is_free();
    drop index if exists envdata.location_name_key;
    alter table envdata.location drop column if exists name_key;
    create unique index location_name_key on envdata.location (lower(name));
  `.execute(db);
}

/** `locationNameKey` as of this migration. */
function nameKey(name: string): string {
  return name
    .normalize('NFC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFC');
}
