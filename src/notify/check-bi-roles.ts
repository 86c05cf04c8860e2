import { sql, type Kysely } from 'kysely';
import { recordAlertState } from '../ledger/record-alert-state.js';
import { recordNotification } from '../ledger/record-notification.js';
import { resetBiRoleSettings } from '../warehouse/reset-bi-role-settings.js';
import type { Database } from '../warehouse/schema.js';

/** A BI role found with its limits lifted, of which the operator was just told. */
export interface LiftedBiRole {
  readonly role: string;
  /** What was lifted: `statement_timeout 0 → 60s`. */
  readonly lifted: readonly string[];
  /** Whether envdata put it back (false: this role may not alter roles). */
  readonly resettable: boolean;
}

/**
 * Puts back the timeouts and connection limit a BI role lifted for itself, and tells the operator
 * once per time it happened (`bi-role-lifted`). The notification dispatcher of every
 * long-running process runs it after `checkAlerts`, so a lifted `statement_timeout` lasts a
 * minute or so, not until the next `envdata bi-role`.
 *
 * The BI roles are those granted `USAGE` on schema `analytics` that are readers only (no
 * superuser, none that may create roles or databases, neither the database owner nor the role
 * envdata runs as nor a member of either): `envdata_bi` and any named with `bi-role --role`.
 *
 * Resetting another role's settings takes a superuser or CREATEROLE. Without it the check only
 * looks, and tells once while the setting stays lifted that `envdata bi-role` must be run by a
 * role that may (`resettable: false`). Returns what it told of.
 */
export async function checkBiRoles(db: Kysely<Database>): Promise<LiftedBiRole[]> {
  const { roles, mayAlterRoles } = await biRoles(db);
  const told: LiftedBiRole[] = [];
  for (const role of roles) {
    if (!mayAlterRoles) {
      const lifted = await resetBiRoleSettings(db, role, { dryRun: true });
      const changed = await recordAlertState(db, `bi-role:${role}`, lifted.length > 0, (changes) =>
        lifted.length > 0
          ? {
              key: `bi-role:${role}:lifted:${changes}`,
              event: 'bi-role-lifted',
              details: {
                role,
                lifted,
                resettable: false,
                action: `run \`envdata bi-role${role === 'envdata_bi' ? '' : ` --role ${role}`}\` as a superuser or a role with CREATEROLE`,
              },
            }
          : undefined,
      );
      if (changed && lifted.length > 0) told.push({ role, lifted, resettable: false });
      continue;
    }
    const reset = await db.transaction().execute(async (trx) => {
      // Two processes checking at once: the second finds the settings put back.
      await sql`select pg_advisory_xact_lock(hashtext('envdata.bi-role-check'))`.execute(trx);
      const reset = await resetBiRoleSettings(trx, role);
      if (reset.length === 0) return reset;
      const { rows } = await sql<{ changes: number }>`
        insert into envdata.alert_state (alert, active, changes) values (${`bi-role-reset:${role}`}, false, 1)
        on conflict (alert) do update set changes = alert_state.changes + 1, changed_at = now()
        returning changes`.execute(trx);
      await recordNotification(trx, {
        key: `bi-role:${role}:reset:${rows[0]!.changes}`,
        event: 'bi-role-lifted',
        details: { role, lifted: reset, resettable: true },
      });
      return reset;
    });
    if (reset.length > 0) told.push({ role, lifted: reset, resettable: true });
  }
  return told;
}

/** The BI roles of this database, and whether the role envdata runs as may alter them. */
async function biRoles(db: Kysely<Database>): Promise<{ roles: string[]; mayAlterRoles: boolean }> {
  const { rows } = await sql<{ role: string | null; may_alter_roles: boolean }>`
    with owner as (select datdba from pg_database where datname = current_database())
    select r.rolname as role,
      (select rolsuper or rolcreaterole from pg_roles where rolname = current_user) as may_alter_roles
    from (select 1) one
    left join (
      select distinct a.grantee from pg_namespace n, aclexplode(n.nspacl) a
      where n.nspname = 'analytics' and a.privilege_type = 'USAGE' and a.grantee <> 0
    ) g on true
    left join pg_roles r on r.oid = g.grantee
      and not (r.rolsuper or r.rolcreaterole or r.rolcreatedb or r.rolreplication or r.rolbypassrls)
      and r.rolname <> current_user
      and r.oid <> (select datdba from owner)
      and not pg_has_role(r.oid, (select datdba from owner), 'MEMBER')
      and not pg_has_role(r.oid, current_user, 'MEMBER')
    order by 1`.execute(db);
  return {
    roles: rows.flatMap((r) => (r.role === null ? [] : [r.role])),
    mayAlterRoles: rows[0]?.may_alter_roles === true,
  };
}
