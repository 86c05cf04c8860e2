import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import { EnvdataError } from '../../errors/envdata-error.js';
import { LOCATION_REFERENCE_HELP } from '../../locations/location-reference-help.js';
import { allowOverBudgetOption } from '../allow-over-budget-option.js';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';
import {
  collect,
  parseConcurrency,
  parseDatasetOption,
  parseHourBounds,
} from '../parse-cli-values.js';
import { parseWindowOption } from '../parse-window.js';
import { usageError } from '../usage-error.js';
import { START_WINDOW_HOURS } from '../../windows/learned-window.js';

interface BackfillOptions {
  dataset?: string;
  from?: string;
  to?: string;
  location?: string[];
  window?: string;
  dryRun?: boolean;
  json?: boolean;
  wait?: boolean;
  localWorker: boolean;
  concurrency?: string;
  recheckNoData?: boolean;
  allowOverBudget?: boolean;
}

export function registerBackfillCommand(program: Command, context: CommandContext): void {
  program
    .command('backfill')
    .description(
      'Plan history for a date range into chunks and dispatch them to the workers; the ledger makes it resumable and never fetches a done chunk twice',
    )
    .requiredOption('--dataset <dataset>', 'pollen, weather or all')
    .requiredOption(
      '--from <date>',
      'start, UTC: YYYY-MM-DD or "YYYY-MM-DD hh:00:00" (inclusive; whole hours only)',
    )
    .requiredOption('--to <date>', 'end, UTC (exclusive); clipped to the last complete hour')
    .option(
      '--location <name|id>',
      'a registered location: name, id, id:N or name:N (repeatable; default: all)',
      collect,
    )
    .option(
      '--window <hours>',
      'hours per request, e.g. 48h, or auto: learned per key and dataset (default ENVDATA_HISTORY_WINDOW)',
    )
    .option(
      '--recheck-no-data',
      'ask again every hour of the range the service answered "no data", however recently (ENVDATA_NO_DATA_RECHECK otherwise)',
    )
    .option(
      '--dry-run',
      'print chunks, calls, expected rows, duration, cost and days under the quota; write nothing',
    )
    .addOption(allowOverBudgetOption())
    .option(
      '--json',
      'with --dry-run: print the plan as one JSON document (shape: docs/json-output.md)',
    )
    .option(
      '--wait',
      'block until the run is finished, with progress; exit 1 if chunks failed, hours were quarantined or values were set aside; Ctrl-C pauses it (exit 130)',
    )
    .option('--no-local-worker', 'with --wait: only watch, let other worker processes do the work')
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .addHelpText('after', `\nLocations: ${LOCATION_REFERENCE_HELP}.`)
    .action(async (options: BackfillOptions) => {
      // Everything is validated before anything is planned or written.
      const datasets = parseDatasetOption(options.dataset ?? '');
      const { from, to } = parseHourBounds({ from: options.from ?? '', to: options.to ?? '' });
      const config = context.config;
      const windowAuto =
        options.window === undefined
          ? config.ingest.historyWindowAuto
          : /^auto$/i.test(options.window);
      const windowHours =
        options.window === undefined || windowAuto
          ? config.ingest.historyWindowAuto || windowAuto
            ? START_WINDOW_HOURS
            : config.ingest.historyWindowHours
          : parseWindowOption(options.window);
      const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
      if (options.json && !options.dryRun) {
        throw usageError(
          '--json only goes with --dry-run: a backfill that runs prints progress for people; follow it with `envdata status RUN --json`',
        );
      }
      if (!options.dryRun) requireApiKey(context.config);
      if (!options.wait && options.localWorker === false) {
        throw usageError('--no-local-worker only makes sense with --wait');
      }

      // What plans and prints, loaded once the arguments hold (`--help` and usage errors do not).
      const [
        { resolveLocations },
        { startBackfill },
        { readPlanCost },
        { formatPlanCost },
        { refuseOverBudget },
        { formatOverBudgetNote },
      ] = await Promise.all([
        import('../../locations/resolve-locations.js'),
        import('../../runs/start-backfill.js'),
        import('../read-plan-cost.js'),
        import('../format-plan-cost.js'),
        import('../refuse-over-budget.js'),
        import('../format-over-budget-note.js'),
      ]);
      // A dry run writes nothing and dispatches nothing: Redis is not needed for it.
      await context.withApp(
        async (app) => {
          const locations = await resolveLocations(app.db, options.location ?? []);
          if (locations.length === 0) {
            throw new EnvdataError(
              'NOT_FOUND',
              'no locations are registered: `envdata locations add --lat … --lng …` first',
            );
          }
          const backfill = {
            datasets,
            locations,
            from,
            to,
            windowHours,
            windowAuto,
            ...(options.recheckNoData && { recheckNoData: true }),
          };
          // A plan beyond what is left of the month's budget, once the unfinished runs make the
          // calls they still plan, is refused before anything is written. Allowed over it, the
          // plan is not made twice: the cost of the run started says so below.
          if (!options.dryRun && !options.allowOverBudget) {
            const spending = {
              what: 'this backfill',
              narrow: 'Narrow it (--from/--to, --location)',
              calls: async () =>
                (await startBackfill(app, backfill, { dryRun: true })).estimate.calls,
            };
            await refuseOverBudget(app, spending, false);
          }
          const start = await startBackfill(app, backfill, { dryRun: options.dryRun ?? false });
          const cost = await readPlanCost(app, start.estimate.calls, 'other', {
            ...(start.runId !== undefined && { exceptRunId: start.runId }),
          });
          if (options.json) {
            const { toBackfillPlanJson } = await import('../json/backfill-plan-json.js');
            const request = { datasets, from, to, windowHours, windowAuto, locations };
            const plan = toBackfillPlanJson(request, start, config.rateLimits, new Date(), cost);
            printJsonDocument(context, plan);
            return;
          }
          const e = start.estimate;
          if (!options.dryRun && start.runId === undefined) {
            context.print('nothing to do, no run written:');
            for (const note of start.notes) context.print(`  ${note}`);
            return;
          }
          context.print(
            `${options.dryRun ? 'would plan' : start.resumed ? `resumed run ${start.runId}:` : `run ${start.runId}:`} ` +
              `${e.chunks} chunk(s) = ${e.calls} API call(s) for ${locations.length} location(s), ` +
              `~${e.expectedRows} rows`,
          );
          for (const [dataset, d] of Object.entries(e.byDataset)) {
            const window = e.windowAuto ? ` of ${d.windowHours} h (learned)` : '';
            context.print(`  ${dataset}: ${d.chunks} chunk(s)${window}, ~${d.expectedRows} rows`);
          }
          if (e.windowAuto) {
            context.print(
              `  window learned per key and dataset (ENVDATA_HISTORY_WINDOW=auto): ${e.calls} call(s) at the learned window, ${e.callsAt48h} at 48 h`,
            );
          }
          for (const line of formatPlanCost(cost, config.rateLimits)) context.print(`  ${line}`);
          if (cost.overBudget) {
            const state = options.dryRun ? 'refused' : 'started';
            const note = formatOverBudgetNote('backfill', state, config.quota.budgetPerMonth);
            context.print(`  ${note}`);
          }
          for (const note of start.notes) context.print(`  ${note}`);
          if (options.dryRun || start.runId === undefined) return;
          if (!options.wait) {
            context.print(
              `dispatched; workers (\`envdata worker\`) do the rest — follow with \`envdata status ${start.runId}\``,
            );
            return;
          }
          const { followRuns } = await import('../follow-runs.js');
          await followRuns(app, context, [start.runId], {
            localWorker: options.localWorker,
            concurrency,
          });
        },
        config,
        { queue: !options.dryRun, ...(!options.dryRun && { tracing: 'backfill' as const }) },
      );
    });
}
