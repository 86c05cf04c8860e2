import { sql, type Kysely } from 'kysely';

/**
 * Share units per field. The service writes the unit of each of humidity, cloud cover and
 * precipitation probability field by field (one recorded answer sends humidity 81 beside cloud
 * cover 0.83), not one unit per answer as 0021 assumed.
 *
 * - `envdata.share_unit` gains `field` (`humidity`, `cloudCover`, `precipProbability`, the
 *   service's spelling) in its key. Its rows were decided from all of an answer's shares
 *   together, which says nothing sure of any one field, so they are dropped: the next answer
 *   whose values of a field tell its unit writes that field's row again.
 * - `envdata.pending_repair` lists repairs the code must make after a migration, by name, with
 *   what they are for. 0021's rule set aside every share of an answer it called contradictory
 *   (humidity 81 beside cloud cover 0.83) and read cloud cover 1 beside humidity 92 as 1 %: the
 *   repair `share-units-per-field` reads the archived weather answers again with the rule per
 *   field (`envdata migrate` runs it, with no call to the service) and then deletes its row.
 *   Only a warehouse with archived weather answers needs it.
 *
 * In `envdata`, which the BI role `envdata_bi` cannot read. Frozen in time: plain SQL, no app
 * imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`delete from envdata.share_unit`.execute(db);
  await sql`
    alter table envdata.share_unit
      add column field text not null
        check (field in ('humidity', 'cloudCover', 'precipProbability')),
      drop constraint share_unit_pkey,
      add primary key (dataset, source, field);
  `.execute(db);
  await sql`
    create table envdata.pending_repair (
      repair text primary key,
      reason text not null,
      created_at timestamptz not null default now()
    );
  `.execute(db);
  await sql`
    insert into envdata.pending_repair (repair, reason)
    select 'share-units-per-field',
      'weather shares stored under the rule that decided one unit per answer: read the archived answers again, field by field'
    where exists (select 1 from envdata.raw_payload where dataset = 'weather');
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.pending_repair;`.execute(db);
  await sql`delete from envdata.share_unit`.execute(db);
  await sql`
    alter table envdata.share_unit
      drop constraint share_unit_pkey,
      drop column field,
      add primary key (dataset, source);
  `.execute(db);
}
