import { getNextMillis } from 'bullmq';
import { sql } from 'kysely';
import type { Uses } from '../app/app-resources.js';
import {
  forgetObservation,
  observedSince,
  recordAlertState,
} from '../ledger/record-alert-state.js';
import { readFreshness } from '../ledger/read-freshness.js';
import { recordNotification } from '../ledger/record-notification.js';
import { DATASETS } from '../types.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/** A sync that has not started this long after its schedule is missed. */
const SYNC_GRACE_MS = 3_600_000;

export interface CheckAlertsOptions {
  readonly now?: Date;
  /**
   * Since when this process has watched: a nightly sync due before it started is not its to
   * call missed (the installation may just have been set up).
   */
  readonly watchingSince?: Date;
}

/**
 * The conditions no single transaction makes, checked periodically by every long-running
 * process (`NotificationDispatcher`); each records its event once per transition, whoever
 * checks, through a locked state (`recordAlertState`) or a unique dedupe key. Returns the next
 * instant a condition comes due on its own (a held quota's reset), for the next check to be
 * made then rather than up to a period later; `undefined` when none is waiting:
 * - freshness per dataset: locations with data lagging more than ENVDATA_FRESHNESS_MAX_LAG
 *   (`freshness-breached`, one event for all of them), then none (`freshness-recovered`);
 *   locations with nothing landed yet are not a breach: nothing went stale;
 * - runs with work queued and no worker connected for ENVDATA_NO_WORKER_ALERT (`no-worker`);
 * - a quota's reset passed after it held the runs (`quota-freed`);
 * - the nightly sync not started within an hour of its schedule (`sync-missed`).
 *
 * The dispatcher also runs `checkBiRoles` with it (a BI role's lifted timeouts, put back).
 */
export async function checkAlerts(
  app: Uses<'config' | 'db' | 'queues'>,
  options: CheckAlertsOptions = {},
): Promise<Date | undefined> {
  const now = options.now ?? new Date();
  await checkFreshness(app, now);
  await checkWorkers(app, now);
  const nextReset = await checkQuotaFreed(app, now);
  if (options.watchingSince) await checkSyncMissed(app, now, options.watchingSince);
  return nextReset;
}

async function checkFreshness(app: Uses<'config' | 'db'>, now: Date): Promise<void> {
  const maxLagHours = app.config.sync.maxLagHours;
  const freshness = await readFreshness(app.db, maxLagHours, now);
  for (const dataset of DATASETS) {
    const stale = freshness.filter(
      (f) => f.dataset === dataset && f.lagHours !== null && f.lagHours > maxLagHours,
    );
    const worstLagHours = Math.round(Math.max(0, ...stale.map((f) => f.lagHours ?? 0)));
    await recordAlertState(app.db, `freshness:${dataset}`, stale.length > 0, (changes) =>
      stale.length > 0
        ? {
            key: `freshness:${dataset}:breach:${changes}`,
            event: 'freshness-breached',
            details: {
              dataset,
              stale: stale.length,
              worstLagHours,
              maxLagHours,
              locations: stale.slice(0, 5).map((f) => f.name),
              action:
                'see `envdata status`; check that the scheduler and workers run (envdata sync --now catches up)',
            },
          }
        : {
            key: `freshness:${dataset}:recovery:${changes}`,
            event: 'freshness-recovered',
            details: { dataset, maxLagHours },
          },
    );
  }
}

async function checkWorkers(app: Uses<'config' | 'db' | 'queues'>, now: Date): Promise<void> {
  const { rows } = await sql<{ runs: number }>`
    select count(*)::int as runs from envdata.run r
    where r.status = 'running' and (
      exists (select 1 from envdata.chunk c
        where c.run_id = r.run_id and c.status in ('pending', 'queued'))
      or exists (select 1 from envdata.run_gap g
        where g.run_id = r.run_id and g.next_from < g.gap_to))`.execute(app.db);
  const runs = rows[0]?.runs ?? 0;
  const workers = runs === 0 ? [] : await app.queues.listWorkers(QUEUE_NAMES.ingest);
  if (runs === 0 || workers.some((worker) => worker.alive)) {
    await forgetObservation(app.db, 'no-worker:since');
    await recordAlertState(app.db, 'no-worker', false, () => undefined);
    return;
  }
  const since = await observedSince(app.db, 'no-worker:since');
  const waitedMs = now.getTime() - since.getTime();
  if (waitedMs < app.config.notify.noWorkerAlertMs) return;
  await recordAlertState(app.db, 'no-worker', true, (changes) => ({
    key: `no-worker:${changes}`,
    event: 'no-worker',
    details: {
      runs,
      minutes: Math.round(waitedMs / 60_000),
      action: 'start workers: envdata worker (on any host)',
    },
  }));
}

/** Records `quota-freed` for every reset passed; returns the earliest reset still to come. */
async function checkQuotaFreed(app: Uses<'config' | 'db'>, now: Date): Promise<Date | undefined> {
  const { rows } = await sql<{ key: string; reason: string; until: string }>`
    select n.dedupe_key as key, n.details->>'reason' as reason, n.details->>'until' as until
    from envdata.notification n
    where n.event = 'quota-reached'
      and n.created_at > now() - make_interval(secs => ${app.config.notify.maxAgeMs / 1000})`.execute(
    app.db,
  );
  let nextReset: Date | undefined;
  for (const row of rows) {
    const until = new Date(row.until);
    if (until > now) {
      if (nextReset === undefined || until < nextReset) nextReset = until;
      continue;
    }
    await recordNotification(app.db, {
      key: row.key.replace(/:reached$/, ':freed'),
      event: 'quota-freed',
      details: { reason: row.reason, until: row.until },
    });
  }
  return nextReset;
}

async function checkSyncMissed(
  app: Uses<'config' | 'db'>,
  now: Date,
  watchingSince: Date,
): Promise<void> {
  // The last firing due at least an hour ago, and after this process began to watch.
  let due: number | undefined;
  for (let at = watchingSince.getTime(); ;) {
    const next = getNextMillis(at, { pattern: app.config.sync.cron, tz: 'UTC' });
    if (next === undefined || next > now.getTime() - SYNC_GRACE_MS) break;
    due = next;
    at = next;
  }
  if (due === undefined) return;
  const started = await app.db
    .selectFrom('run')
    .select('run_id')
    .where('kind', '=', 'sync')
    .where('created_at', '>=', new Date(due - 60_000))
    .executeTakeFirst();
  if (started) return;
  const scheduledAt = new Date(due).toISOString();
  await recordNotification(app.db, {
    key: `sync-missed:${scheduledAt}`,
    event: 'sync-missed',
    details: {
      scheduledAt,
      cron: app.config.sync.cron,
      action:
        'check that `envdata scheduler` runs and its queue answers; envdata sync --now runs it now',
    },
  });
}
