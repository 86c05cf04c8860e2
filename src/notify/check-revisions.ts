import { sql } from 'kysely';
import type { Uses } from '../runtime/app-resources.js';
import { readRunRevisions } from '../ledger/run-revisions.js';
import { recordNotification } from '../ledger/record-notification.js';

/**
 * Records `run-revised` for each run that ended within ENVDATA_NOTIFY_MAX_AGE and revised more
 * than ENVDATA_ALERT_REVISED_SHARE of the hours it re-read (`readRunRevisions`), in a dataset:
 * once per run (its dedupe key `run:N:revised`), whoever checks, however often. Runs already
 * told are not read again. Nothing when the setting is `off`.
 */
export async function checkRevisions(app: Uses<'config' | 'db'>, now: Date): Promise<void> {
  const limit = app.config.notify.revisedShare;
  if (limit === undefined) return;
  const ended = await app.db
    .selectFrom('run')
    .select(['run_id', 'kind'])
    .where('status', 'in', ['done', 'failed', 'stopped', 'cancelled'])
    .where('finished_at', '>', new Date(now.getTime() - app.config.notify.maxAgeMs))
    .where(
      sql<boolean>`not exists (select 1 from envdata.notification n
        where n.dedupe_key = 'run:' || run.run_id || ':revised')`,
    )
    .execute();
  if (ended.length === 0) return;
  const revisions = await readRunRevisions(
    app.db,
    ended.map((r) => r.run_id),
  );
  for (const run of ended) {
    const over = (revisions.get(run.run_id) ?? []).filter(
      (r) => r.revisedHours > 0 && r.revisedHours > limit * r.rereadHours,
    );
    if (over.length === 0) continue;
    await recordNotification(app.db, {
      key: `run:${run.run_id}:revised`,
      event: 'run-revised',
      details: {
        runId: run.run_id,
        kind: run.kind,
        limitPercent: round(limit * 100),
        datasets: over.map((r) => ({
          dataset: r.dataset,
          revisedHours: r.revisedHours,
          rereadHours: r.rereadHours,
          percent: r.rereadHours === 0 ? 100 : round((r.revisedHours / r.rereadHours) * 100),
        })),
        action: `see \`envdata status ${run.run_id}\`; the old values are in ${over
          .map((r) =>
            r.dataset === 'weather'
              ? 'analytics.weather_hourly_revisions'
              : 'analytics.pollen_hourly_revisions and analytics.pollen_species_hourly_revisions',
          )
          .join(', ')} (replaced_by_run = ${run.run_id})`,
      },
    });
  }
}

/** `x` to one decimal. */
function round(x: number): number {
  return Math.round(x * 10) / 10;
}
