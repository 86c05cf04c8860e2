import { sql, type Kysely } from 'kysely';

/**
 * Locations can be retired (`envdata locations remove` without `--purge`): the row and its facts
 * stay, so history remains queryable, but planning leaves the location out. A location
 * registered by place can prefer the pollen by-place endpoints (`ingest_by_place`); that needs
 * the place text to query with.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.location
      add column retired_at timestamptz,
      add column ingest_by_place boolean not null default false,
      add constraint location_ingest_by_place_needs_place
        check (not ingest_by_place or place is not null);
    create index location_active on envdata.location (location_id) where retired_at is null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists envdata.location_active;
    alter table envdata.location
      drop constraint if exists location_ingest_by_place_needs_place,
      drop column if exists ingest_by_place,
      drop column if exists retired_at;
  `.execute(db);
}
