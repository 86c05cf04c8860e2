import { sql, type Kysely } from 'kysely';

/**
 * Drift contained, by policy (issue 36): what the answers of a shape not accepted do.
 *
 * - `envdata.drift_policy`: the policy of a dataset declared in envdata.yaml (`datasets.NAME.drift`),
 *   stored by `envdata apply` so that workers on every host read the same one; a dataset
 *   without a row follows the worker's ENVDATA_DRIFT_POLICY.
 * - `envdata.upstream_shape.froze`: the shape came to a dataset under `freeze`: while it is not
 *   accepted, no chunk of that dataset is dispatched or claimed (no call is made), and its runs
 *   show the waiting reason `upstream changed`.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table envdata.drift_policy (
      dataset envdata.dataset primary key,
      policy text not null check (policy in ('evolve', 'quarantine', 'freeze')),
      declared_at timestamptz not null default now()
    );
    alter table envdata.upstream_shape add column froze boolean not null default false;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.upstream_shape drop column froze;
    drop table envdata.drift_policy;
  `.execute(db);
}
