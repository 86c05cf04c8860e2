import { getNextMillis } from 'bullmq';
import { sql } from 'kysely';
import type { Uses } from '../runtime/app-resources.js';
import {
  forgetObservation,
  observedSince,
  recordAlertState,
} from '../ledger/record-alert-state.js';
import type { Config } from '../config/config.js';
import { monthCapOf } from '../config/quota.js';
import { locationsBeingFilled } from '../ledger/locations-being-filled.js';
import { runCallsLeft } from '../ledger/open-run-calls.js';
import { readFreshness } from '../ledger/read-freshness.js';
import { recordNotification } from '../ledger/record-notification.js';
import { checkRevisions } from './check-revisions.js';
import { DATASETS } from '../types.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/** A sync that has not started this long after its schedule is missed. */
const SYNC_GRACE_MS = 3_600_000;

/** The mean month, in days: a month's window for an expected end. */
const MONTH_DAYS = 365.2425 / 12;

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
 *   locations with nothing landed yet are not a breach: nothing went stale; nor is one an
 *   unfinished run is filling up to its recent hours (`locationsBeingFilled`: a first backfill
 *   lands older chunks first);
 * - runs with work queued and no worker connected for ENVDATA_NO_WORKER_ALERT (`no-worker`);
 * - a run held by the quota or the budget, once per run, with its expected end
 *   (`run-quota-bound`); a `quota-reached` recorded earlier is followed by `quota-freed` once
 *   its reset passed;
 * - the nightly sync not started within an hour of its schedule (`sync-missed`);
 * - a run ended that revised more than ENVDATA_ALERT_REVISED_SHARE of the hours it re-read,
 *   once per run (`run-revised`, `checkRevisions`).
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
  await checkQuotaBound(app, now);
  const nextReset = await checkQuotaFreed(app, now);
  await checkRevisions(app, now);
  if (options.watchingSince) await checkSyncMissed(app, now, options.watchingSince);
  return nextReset;
}

async function checkFreshness(app: Uses<'config' | 'db'>, now: Date): Promise<void> {
  const maxLagHours = app.config.sync.maxLagHours;
  const freshness = await readFreshness(app.db, maxLagHours, now);
  const filling = await locationsBeingFilled(
    app.db,
    new Date(now.getTime() - maxLagHours * 3_600_000),
  );
  for (const dataset of DATASETS) {
    const stale = freshness.filter(
      (f) =>
        f.dataset === dataset &&
        f.lagHours !== null &&
        f.lagHours > maxLagHours &&
        !filling.has(`${f.locationId}:${f.dataset}`),
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

/**
 * Records `run-quota-bound` for each running run held by a calendar quota or the budget, once
 * per run (its dedupe key): the calls it has left and the day it should end at this pace, each
 * reset giving it the window's calls (the daily quota less the sync's reserve, or the month's
 * cap). Nothing to do: the run goes on at each reset by itself.
 */
async function checkQuotaBound(app: Uses<'config' | 'db'>, now: Date): Promise<void> {
  const held = await app.db
    .selectFrom('run')
    .select(['run_id', 'kind', 'waiting_reason', 'waiting_until'])
    .where('status', '=', 'running')
    .where('waiting_until', '>', now)
    .where((eb) =>
      eb.or([eb('waiting_reason', 'like', 'quota%'), eb('waiting_reason', 'like', 'budget%')]),
    )
    // A window the service itself refused needs a person: `quota-reached` says so (markRunWaiting).
    .where('waiting_reason', 'not like', '%refused by the service')
    .execute();
  for (const run of held) {
    const key = `run:${run.run_id}:quota-bound`;
    const told = await app.db
      .selectFrom('notification')
      .select('notification_id')
      .where('dedupe_key', '=', key)
      .executeTakeFirst();
    if (told) continue;
    const reason = run.waiting_reason!;
    const callsLeft = await runCallsLeft(app.db, run.run_id);
    const finish = expectedFinish(
      app.config.quota,
      reason,
      run.waiting_until!,
      callsLeft,
      run.kind,
    );
    await recordNotification(app.db, {
      key,
      event: 'run-quota-bound',
      details: {
        runId: run.run_id,
        reason,
        until: run.waiting_until!.toISOString(),
        callsLeft,
        expectedFinish: finish,
        faster: `raise ${reason.startsWith('budget') ? 'ENVDATA_BUDGET' : 'ENVDATA_QUOTA'} to go faster`,
      },
    });
  }
}

/**
 * When a run held by `reason` until `until` should end with `callsLeft` calls to make, each
 * window after the reset giving it its calls: the reset of the last window it needs,
 * `2026-12-03 00:00 UTC` (if no other run shares the quota), or `unknown` when the window's size
 * is not configured.
 */
function expectedFinish(
  quota: Config['quota'],
  reason: string,
  until: Date,
  callsLeft: number,
  kind: string,
): string {
  const dayMs = quota.daySeconds * 1_000;
  const perDay =
    quota.perDay === undefined
      ? undefined
      : quota.perDay - (kind === 'sync' ? 0 : quota.syncReserve);
  const month = monthCapOf(quota);
  const [windowMs, perWindow] = reason.endsWith('(day)')
    ? [dayMs, perDay]
    : [dayMs * MONTH_DAYS, month?.limit];
  if (perWindow === undefined || perWindow <= 0) return 'unknown';
  // Each window's calls are made soon after its reset, at the rate: the run ends early in the
  // last window it needs.
  const windows = Math.max(1, Math.ceil(callsLeft / perWindow));
  const iso = new Date(until.getTime() + (windows - 1) * windowMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
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
