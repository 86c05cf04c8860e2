import type { Command } from 'commander';
import { failedChunkGroups, type FailedChunkGroup } from '../../ledger/failed-chunk-groups.js';
import { readFreshness, type Freshness } from '../../ledger/read-freshness.js';
import { recentRunIds, runProgress, type RunProgress } from '../../ledger/run-progress.js';
import { collectStatus, type EnvdataStatus } from '../../status/collect-status.js';
import { formatDuration } from '../../planner/estimate-plan.js';
import type { CommandContext } from '../command-context.js';
import { formatFailedChunks } from '../format-failed-chunks.js';
import { parseRunId } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';
import { formatRunSummary } from '../watch-run.js';

const RECENT_RUNS = 10;

export function registerStatusCommand(program: Command, context: CommandContext): void {
  program
    .command('status [run]')
    .description(
      'Show whether Postgres and Redis answer, pending migrations, queue depths and recent runs; with RUN, that run with its failures by error code',
    )
    .option('--json', 'print JSON')
    .option(
      '--check',
      'exit 1 when Postgres or Redis is down or a location lags more than ENVDATA_FRESHNESS_MAX_LAG (for cron and alerting)',
    )
    .action(async (run: string | undefined, options: { json?: boolean; check?: boolean }) => {
      const runId = run === undefined ? undefined : parseRunId(run);
      const maxLag = context.config.sync.maxLagHours;
      const { status, runs, freshness, failedChunks } = await context.withApp(
        async (app) => {
          const status = await collectStatus(app);
          const runs: RunProgress[] = [];
          let freshness: Freshness[] = [];
          let failedChunks: FailedChunkGroup[] = [];
          if (status.postgres.ok && !status.postgres.pendingMigrations?.length) {
            const ids = runId !== undefined ? [runId] : await recentRunIds(app.db, RECENT_RUNS);
            for (const id of ids) {
              const progress = await runProgress(app.db, id);
              if (progress) runs.push(progress);
            }
            if (runId !== undefined && runs.length === 0) {
              throw usageError(`there is no run ${runId}: see \`envdata status\``);
            }
            freshness = await readFreshness(app.db, maxLag);
            if (runId !== undefined) failedChunks = await failedChunkGroups(app.db, runId);
          }
          return { status, runs, freshness, failedChunks };
        },
        context.config,
        { migrated: false },
      );
      if (options.json) {
        const shown = runId === undefined ? runs : runs.map((p) => ({ ...p, failedChunks }));
        context.print(JSON.stringify({ ...status, runs: shown, freshness }, null, 2));
      } else {
        context.print(formatStatus(status));
        if (run !== undefined) {
          for (const p of runs) context.print(formatRunSummary(p));
          if (failedChunks.length > 0) context.print(formatFailedChunks(failedChunks, runId!));
        } else if (runs.length > 0) {
          context.print('');
          context.print('recent runs:');
          for (const p of runs) context.print(`  ${formatRunLine(p)}`);
        }
        if (run === undefined && freshness.length > 0) {
          context.print('');
          context.print(`freshness (stale beyond ${maxLag} h):`);
          for (const f of freshness) context.print(`  ${formatFreshness(f)}`);
        }
      }
      const down = !status.postgres.ok || !status.redis.ok;
      const waiting = runs.filter(
        (p) => p.status === 'running' && p.inFlight + p.notYetDispatched > 0,
      );
      if (!options.json && status.redis.workers?.length === 0 && waiting.length > 0) {
        context.io.stderr.write(
          `envdata: run(s) ${waiting.map((p) => p.runId).join(', ')} wait for work, but no worker is connected: start \`envdata worker\` (or use --wait)\n`,
        );
      }
      const stale = freshness.filter((f) => f.stale);
      if (down) context.exitCode = 1;
      if (options.check && stale.length > 0) {
        context.io.stderr.write(
          `envdata: ${stale.length} location/dataset pair(s) lag more than ${maxLag} h: ${stale
            .slice(0, 5)
            .map((f) => `${f.name} ${f.dataset}`)
            .join(', ')}${stale.length > 5 ? ', …' : ''}\n`,
        );
        context.exitCode = 1;
      }
    });
}

function formatFreshness(f: Freshness): string {
  const last = f.lastHour
    ? f.lastHour.toISOString().slice(0, 13).replace('T', ' ') + ':00'
    : 'never';
  const lag = f.lagHours === null ? '' : `, lag ${Math.round(f.lagHours)} h`;
  return `${f.name.padEnd(20)} ${f.dataset.padEnd(8)} last hour ${last}${lag}${f.stale ? '  STALE' : ''}`;
}

function formatRunLine(p: RunProgress): string {
  const pct = p.total === 0 ? 100 : Math.floor(((p.done + p.failed) / p.total) * 100);
  const failures = Object.entries(p.failures)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return (
    `${String(p.runId).padStart(4)}  ${p.kind.padEnd(8)} ${p.status.padEnd(8)} ${String(pct).padStart(3)}%  ` +
    `${p.done}/${p.total} chunks, ${p.rows} rows, ${p.calls} calls` +
    (p.failed ? `, failed: ${failures}` : '') +
    (p.quarantinedHours ? `, ${p.quarantinedHours} h quarantined` : '') +
    (p.missingHours ? `, ${p.missingHours} h missing upstream` : '') +
    `  (${p.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`
  );
}

export function formatStatus(status: EnvdataStatus): string {
  const lines: string[] = [];
  const pg = status.postgres;
  lines.push(`postgres  ${pg.url}  ${pg.ok ? 'ok' : `DOWN — ${pg.problem}`}`);
  if (pg.pendingMigrations?.length) {
    lines.push(`  ${pg.pendingMigrations.length} pending migration(s): run \`envdata migrate\``);
  } else if (pg.ok) {
    lines.push('  migrations up to date');
  }
  const redis = status.redis;
  lines.push(`redis     ${redis.url}  ${redis.ok ? 'ok' : `DOWN — ${redis.problem}`}`);
  for (const [queue, counts] of Object.entries(redis.queues ?? {})) {
    const parts = Object.entries(counts).map(([state, n]) => `${state} ${n}`);
    lines.push(`  queue ${queue}: ${parts.join(', ')}`);
  }
  if (redis.workers) {
    lines.push(`  workers connected: ${redis.workers.length}`);
    for (const w of redis.workers) {
      lines.push(
        `    ${w.host} pid ${w.pid}, concurrency ${w.concurrency}, connected ${formatDuration(w.ageSeconds * 1000)}, last seen ${formatDuration(w.idleSeconds * 1000)} ago`,
      );
    }
  }
  return lines.join('\n');
}
