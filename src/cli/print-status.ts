import { EnvdataError } from '../errors/envdata-error.js';
import type { RunProgress } from '../ledger/run-progress.js';
import { formatValuesSetAside, valuesOf } from '../ledger/values-set-aside.js';
import type { EnvdataStatus } from '../status/collect-status.js';
import { collectStatusReport } from '../status/collect-status-report.js';
import { formatDuration } from '../planner/estimate-plan.js';
import { databaseNameOf } from '../warehouse/database-url.js';
import type { CommandContext } from './command-context.js';
import { createPaint, type Paint } from './create-paint.js';
import { formatFailedChunks } from './format-failed-chunks.js';
import { formatUnplaceableRecords } from './format-unplaceable-records.js';
import { formatFreshnessTable, freshnessByLocation } from './format-freshness-table.js';
import { formatLastExport } from './format-last-export.js';
import { printJsonDocument } from './json/print-json-document.js';
import { toRunStatusJson } from './json/run-status-json.js';
import { toStatusJson } from './json/status-json.js';
import { formatRunSummary } from './watch-run.js';
import { formatWaiting } from './format-waiting.js';
import { formatHeldEta } from './format-held-eta.js';
import type { Config } from '../config/config.js';
import { formatQuotaUsage } from './format-quota-usage.js';
import { formatWorkers } from './format-workers.js';
import { formatUndeliveredAlerts } from './format-undelivered-alerts.js';
import { formatArchiveSize } from './format-archive-size.js';
import { formatRunRevisions } from './format-run-revisions.js';

const RECENT_RUNS = 10;

/**
 * `envdata status [RUN] [--json] [--check]` once its arguments are read: collects the report,
 * prints it, and sets the exit code (1 when a service is down or, with `--check`, lags).
 */
export async function printStatus(
  context: CommandContext,
  runId: number | undefined,
  options: { json?: boolean; check?: boolean },
): Promise<void> {
  const maxLag = context.config.sync.maxLagHours;
  const report = await context.withApp(
    (app) => collectStatusReport(app, { runId, recentRuns: RECENT_RUNS, maxLagHours: maxLag }),
    context.config,
    { migrated: false },
  );
  const { status, ledgerRead, runs, freshness, failedChunks } = report;
  if (runId !== undefined && ledgerRead && runs.length === 0) {
    throw new EnvdataError('NOT_FOUND', `there is no run ${runId}: see \`envdata status\``);
  }
  const byLocation = freshnessByLocation(freshness);
  if (options.json) {
    const now = new Date();
    printJsonDocument(
      context,
      runId === undefined
        ? toStatusJson(report, byLocation, maxLag, now, context.config)
        : toRunStatusJson(report, now),
    );
  } else {
    const paint = createPaint(context.config.log.color && Boolean(context.io.stdout.isTTY));
    context.print(formatStatus(status, paint));
    for (const line of formatQuotaUsage(report.quota, context.config)) context.print(line);
    if (runId !== undefined) {
      for (const p of runs) {
        context.print(formatRunSummary(p, context.config));
        const revised = formatRunRevisions(p);
        if (revised !== undefined) context.print(revised);
      }
      if (failedChunks.length > 0) context.print(formatFailedChunks(failedChunks, runId!));
      if (report.unplaceableRecords.length > 0) {
        context.print(formatUnplaceableRecords(report.unplaceableRecords, runs[0]!));
      }
    } else if (runs.length > 0) {
      context.print('');
      context.print('recent runs:');
      for (const p of runs) context.print(`  ${formatRunLine(p, context.config)}`);
    }
    if (runId === undefined && report.archive) {
      context.print('');
      context.print(formatArchiveSize(report.archive, context.config.ingest.archiveRetentionDays));
    }
    if (runId === undefined && report.lastExport) {
      context.print('');
      context.print(formatLastExport(report.lastExport, new Date()));
    }
    if (runId === undefined && report.setAside.length > 0) {
      context.print('');
      context.print(`set aside: ${formatValuesSetAside(report.setAside)}`);
    }
    if (runId === undefined && byLocation.length > 0) {
      const stale = byLocation.filter((l) => l.stale).length;
      context.print('');
      context.print(
        `freshness of ${byLocation.length} location(s), stale beyond ${maxLag} h: ` +
          (stale === 0 ? 'none stale' : `${stale} stale, listed first`),
      );
      for (const line of formatFreshnessTable(byLocation, paint)) context.print(`  ${line}`);
    }
    const alerts = formatUndeliveredAlerts(
      report.undeliveredAlerts,
      context.config.notify.targets.length,
    );
    if (runId === undefined && alerts !== undefined) {
      context.print('');
      context.print(alerts);
    }
  }
  const down = !status.postgres.ok || !status.redis.ok;
  const waiting = runs.filter((p) => p.status === 'running' && p.inFlight + p.notYetDispatched > 0);
  const workers = status.redis.workers;
  if (workers && !workers.some((w) => w.alive) && waiting.length > 0) {
    context.io.stderr.write(
      `envdata: run(s) ${waiting.map((p) => p.runId).join(', ')} wait for work, but no worker is alive: start \`envdata worker\` (or use --wait)\n`,
    );
  }
  const pending = status.postgres.pendingMigrations?.length ?? 0;
  const stale = freshness.filter((f) => f.stale);
  if (down) context.exitCode = 1;
  if (options.check && pending > 0) {
    context.io.stderr.write(
      `envdata: database ${databaseNameOf(context.config.databaseUrl)} is ${pending} migration(s) behind this version of envdata: run \`envdata migrate\`\n`,
    );
    context.exitCode = 1;
  }
  if (options.check && stale.length > 0) {
    context.io.stderr.write(
      `envdata: ${stale.length} location/dataset pair(s) lag more than ${maxLag} h: ${stale
        .slice(0, 5)
        .map((f) => `${f.name} ${f.dataset}`)
        .join(', ')}${stale.length > 5 ? ', …' : ''}\n`,
    );
    context.exitCode = 1;
  }
}

function formatRunLine(p: RunProgress, config: Pick<Config, 'quota' | 'rateLimits'>): string {
  // Progress is what landed: a run whose chunks all failed is at 0 %, not 100 %.
  const pct = p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100);
  const failures = Object.entries(p.failures)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return (
    `${String(p.runId).padStart(4)}  ${p.kind.padEnd(8)} ${p.status.padEnd(8)} ${String(pct).padStart(3)}%  ` +
    `${p.done}/${p.total} chunks, ${p.rows} rows, ${p.calls} calls` +
    (p.failed ? `, failed: ${failures}` : '') +
    (p.dropped ? `, ${p.dropped} dropped (cancelled)` : '') +
    (p.quarantinedHours ? `, ${p.quarantinedHours} h quarantined` : '') +
    (p.missingHours ? `, ${p.missingHours} h missing upstream` : '') +
    (p.unplaceableRecords ? `, ${p.unplaceableRecords} record(s) unplaceable` : '') +
    (p.setAside.length
      ? `, ${p.setAside.reduce((n, g) => n + valuesOf(g), 0)} value(s) set aside`
      : '') +
    (p.waiting ? `, ${formatWaiting(p.waiting)}${formatHeldEta(p, config)}` : '') +
    `  (${p.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`
  );
}

function formatStatus(status: EnvdataStatus, paint: Paint = createPaint(false)): string {
  const health = (s: { ok: boolean; problem?: string }) =>
    s.ok ? paint('green', 'ok') : paint('red', `DOWN — ${s.problem}`);
  const lines: string[] = [];
  const pg = status.postgres;
  lines.push(`postgres  ${pg.url}  ${health(pg)}`);
  if (pg.pendingMigrations?.length) {
    lines.push(
      `  ${paint('yellow', `${pg.pendingMigrations.length} pending migration(s)`)}: run \`envdata migrate\``,
    );
  } else if (pg.ok) {
    lines.push('  migrations up to date');
  }
  const redis = status.redis;
  lines.push(
    redis.backend === 'redis'
      ? `redis     ${redis.url}  ${health(redis)}`
      : `queue     postgres backend, schema envdata_queue  ${health(redis)}`,
  );
  for (const [queue, counts] of Object.entries(redis.queues ?? {})) {
    const parts = Object.entries(counts).map(([state, n]) => `${state} ${n}`);
    lines.push(`  queue ${queue}: ${parts.join(', ')}`);
  }
  if (redis.pausedUntil) {
    const left = Math.max(0, redis.pausedUntil.getTime() - Date.now());
    lines.push(
      `  ${paint('yellow', `every worker paused until ${redis.pausedUntil.toISOString().slice(0, 19).replace('T', ' ')} UTC`)} (${formatDuration(left)} left; the service throttled, or the call budget is spent): \`envdata resume\` ends it now`,
    );
  }
  if (redis.workers) {
    for (const line of formatWorkers(redis.workers, new Date(), paint)) lines.push(`  ${line}`);
  }
  return lines.join('\n');
}
