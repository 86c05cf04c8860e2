import type { Command } from 'commander';
import { startSync } from '../../sync/start-sync.js';
import { SyncScheduler } from '../../sync/sync-scheduler.js';
import { IngestWorker } from '../../worker/ingest-worker.js';
import type { CommandContext } from '../command-context.js';
import { shutdownSignal } from '../shutdown-signal.js';
import { usageError } from '../usage-error.js';
import { formatRunSummary, watchRun } from '../watch-run.js';
import { parseConcurrency, requireApiKey } from './worker-command.js';

export function registerSyncCommands(program: Command, context: CommandContext): void {
  program
    .command('sync')
    .description(
      'Bring every location up to the last complete hour now (re-reading the lookback), and fetch latest readings and forecasts; the scheduler does this nightly',
    )
    .option('--now', 'run the sync at once (required: the nightly one is `envdata scheduler`)')
    .option('--wait', 'block until the sync run is finished, with a local worker')
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .action(async (options: { now?: boolean; wait?: boolean; concurrency?: string }) => {
      if (!options.now) {
        throw usageError(
          '`envdata sync` needs --now; the nightly sync is run by `envdata scheduler`',
        );
      }
      const config = context.config;
      const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
      requireApiKey(context);
      await context.withApp(
        async (app) => {
          const start = await startSync(app);
          context.print(
            `sync run ${start.runId}: ${start.gaps} range(s) for ${start.locations} location(s), ${start.snapshots} snapshot job(s)`,
          );
          if (!options.wait) return;
          const stop = shutdownSignal();
          const worker = IngestWorker.start(app, { concurrency });
          try {
            const progress = await watchRun(app.db, start.runId, {
              interactive: Boolean(context.io.stderr.isTTY),
              stream: context.io.stderr,
              logger: app.logger,
              stop: stop.then(() => undefined),
              outages: app.outages,
            });
            context.print(formatRunSummary(progress));
            if (progress.status !== 'done') context.exitCode = 1;
          } finally {
            await worker.close();
          }
        },
        config,
        { queue: true },
      );
    });

  program
    .command('scheduler')
    .description(
      'Keep the nightly sync scheduled (ENVDATA_SYNC_CRON, UTC) and plan it when it fires; safe to run several',
    )
    .action(async () => {
      const config = context.config;
      await context.withApp(
        async (app) => {
          // Listening before starting: a signal during start-up stops the scheduler gracefully.
          const stop = shutdownSignal((s) =>
            app.logger.info({ signal: s }, 'stopping (a second signal stops at once)'),
          );
          const scheduler = await SyncScheduler.start(app);
          const signal = await stop;
          await scheduler.close();
          app.logger.info({ signal }, 'scheduler stopped');
        },
        config,
        { queue: true },
      );
    });
}
