import { sql, type Kysely } from 'kysely';

/**
 * The share unit each source of a dataset last answered in: whether its humidity, cloud cover
 * and precipitation probability came as fractions (0–1) or percentages (0–100), as decided from
 * a whole answer. An answer that cannot tell by itself (every share 0 or 1) is read in this
 * unit; with no row, its shares are quarantined.
 *
 * - `source`: `history`, or the snapshot product (`latest`, `forecast_72h`, …): the service's
 *   endpoints answer apart, so one's unit says nothing of another's.
 * - Not per API key: the unit is how an endpoint writes its answers, not a plan's limit, and a
 *   rebuild from the archive has no key to look it up by.
 *
 * In `envdata`, which the BI role `envdata_bi` cannot read. Frozen in time: plain SQL, no app
 * imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.share_unit (
      dataset envdata.dataset not null,
      source text not null
        check (source in ('history', 'latest', 'forecast_48h', 'forecast_72h', 'forecast_120h')),
      unit text not null check (unit in ('fraction', 'percent')),
      updated_at timestamptz not null default now(),
      primary key (dataset, source)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.share_unit;`.execute(db);
}
