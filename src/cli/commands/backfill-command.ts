import type { Command } from 'commander';
import { resolveLocations } from '../../locations/resolve-locations.js';
import { formatDuration } from '../../planner/estimate-plan.js';
import { startBackfill } from '../../runs/start-backfill.js';
import { IngestWorker } from '../../worker/ingest-worker.js';
import type { CommandContext } from '../command-context.js';
import {
  assertOrdered,
  collect,
  parseDatasetOption,
  parseUtcDateOption,
} from '../parse-cli-values.js';
import { parseWindowOption } from '../parse-window.js';
import { shutdownSignal } from '../shutdown-signal.js';
import { usageError } from '../usage-error.js';
import { formatRunSummary, watchRun } from '../watch-run.js';
import { parseConcurrency, requireApiKey } from './worker-command.js';

interface BackfillOptions {
  dataset?: string;
  from?: string;
  to?: string;
  location?: string[];
  window?: string;
  dryRun?: boolean;
  wait?: boolean;
  localWorker: boolean;
  concurrency?: string;
}

export function registerBackfillCommand(program: Command, context: CommandContext): void {
  program
    .command('backfill')
    .description(
      'Plan history for a date range into chunks and dispatch them to the workers; the ledger makes it resumable and never fetches a done chunk twice',
    )
    .requiredOption('--dataset <dataset>', 'pollen, weather or all')
    .requiredOption('--from <date>', 'start, UTC: YYYY-MM-DD or "YYYY-MM-DD hh:mm:ss" (inclusive)')
    .requiredOption('--to <date>', 'end, UTC (exclusive); clipped to the last complete hour')
    .option('--location <name|id>', 'a registered location (repeatable; default: all)', collect)
    .option('--window <hours>', 'hours per request, e.g. 48h (default ENVDATA_HISTORY_WINDOW)')
    .option('--dry-run', 'print chunks, calls, expected rows and duration; write nothing')
    .option('--wait', 'block until the run is finished, with progress; exit 1 if chunks failed')
    .option('--no-local-worker', 'with --wait: only watch, let other worker processes do the work')
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .action(async (options: BackfillOptions) => {
      // Everything is validated before anything is planned or written.
      const datasets = parseDatasetOption(options.dataset ?? '');
      const from = parseUtcDateOption('--from', options.from ?? '');
      const to = parseUtcDateOption('--to', options.to ?? '');
      assertOrdered(from, to);
      const config = context.config;
      const windowHours =
        options.window === undefined
          ? config.ingest.historyWindowHours
          : parseWindowOption(options.window);
      const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
      if (!options.dryRun) requireApiKey(context);
      if (!options.wait && options.localWorker === false) {
        throw usageError('--no-local-worker only makes sense with --wait');
      }

      // A dry run writes nothing and dispatches nothing: Redis is not needed for it.
      const queue = !options.dryRun;
      await context.withApp(
        async (app) => {
          const locations = await resolveLocations(app.db, options.location ?? []);
          if (locations.length === 0) {
            throw usageError(
              'no locations are registered: `envdata locations add --lat … --lng …` first',
            );
          }
          const start = await startBackfill(
            app,
            { datasets, locations, from, to, windowHours },
            { dryRun: options.dryRun ?? false },
          );
          const e = start.estimate;
          const limits = config.rateLimits.map((r) => r.label).join(', ') || 'no limit';
          context.print(
            `${options.dryRun ? 'would plan' : start.resumed ? `resumed run ${start.runId}:` : `run ${start.runId}:`} ` +
              `${e.chunks} chunk(s) = ${e.calls} API call(s) for ${locations.length} location(s), ` +
              `~${e.expectedRows} rows, ~${formatDuration(e.durationMs)} at ${limits}`,
          );
          for (const [dataset, d] of Object.entries(e.byDataset)) {
            context.print(`  ${dataset}: ${d.chunks} chunk(s), ~${d.expectedRows} rows`);
          }
          if (options.dryRun || start.runId === undefined) return;
          if (!options.wait) {
            context.print(
              `dispatched; workers (\`envdata worker\`) do the rest — follow with \`envdata status ${start.runId}\``,
            );
            return;
          }
          const stop = shutdownSignal();
          const worker = options.localWorker ? IngestWorker.start(app, { concurrency }) : undefined;
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
            await worker?.close();
          }
        },
        config,
        { queue },
      );
    });
}
