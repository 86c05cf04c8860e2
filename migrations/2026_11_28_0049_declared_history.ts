import { sql, type Kysely } from 'kysely';

/**
 * The history envdata.yaml declared, kept so that `envdata export-config` writes the file back as
 * it was applied (issue 38): planned again, it buys nothing.
 *
 * - `envdata.declared_history`: per dataset of the file last applied, its `since` as written
 *   (`2016-01-01`, `-90d`: a span back from now stays one) and the `since` of each group
 *   (`{"alps": "-1y"}`). A dataset the file leaves out has no row.
 * - `envdata.location.declared_group`: the group the file last applied gives the location
 *   (`group: alps`); null for none, or for a location never declared.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.declared_history (
      dataset envdata.dataset primary key,
      since text not null check (length(since) > 0),
      groups jsonb not null default '{}' check (jsonb_typeof(groups) = 'object'),
      declared_at timestamptz not null default now()
    );
    comment on table envdata.declared_history is
      'Per dataset of the envdata.yaml last applied: its since as written and each group''s (envdata export-config writes them back).';
    alter table envdata.location add column declared_group text;
    comment on column envdata.location.declared_group is
      'The group envdata.yaml last applied gives the location (its datasets may give the group a since of its own); null for none.';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.location drop column declared_group;
    drop table envdata.declared_history;
  `.execute(db);
}
