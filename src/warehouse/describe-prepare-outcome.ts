import type { PrepareOutcome } from './prepare-warehouse.js';

/**
 * The one line that stands for the migrations' logs (`applied` at info, one per migration): how
 * many ran and the latest, for the demo and `envdata local start`, whose logs stay at `warn`.
 */
export function describePrepareOutcome(prepared: PrepareOutcome): string {
  const created = prepared.createdDatabase ? 'created the database, ' : '';
  const applied =
    prepared.applied.length === 0
      ? 'no migration to apply'
      : `applied ${prepared.applied.length} migration(s)`;
  return `warehouse ready: ${created}${applied} (latest ${prepared.latest ?? 'none'})`;
}
