import { sql, type Kysely } from 'kysely';

/**
 * What the service answered when asked to geocode a place, kept so that `envdata plan` of a
 * declared file (envdata.yaml) that names a place not registered yet pays for the call once,
 * not at every plan: one row per place text as asked (trimmed, lower case), with the matches,
 * best first, and when they were answered (older answers are asked again). The choice among the
 * matches (a country, an ambiguity) is made anew from them each time.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.geocode_answer (
      place_key text primary key,
      matches jsonb not null check (jsonb_typeof(matches) = 'array'),
      answered_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table envdata.geocode_answer;`.execute(db);
}
