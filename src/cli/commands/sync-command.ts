import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import { allowOverBudgetOption } from '../allow-over-budget-option.js';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { parseConcurrency } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';

export function registerSyncCommands(program: Command, context: CommandContext): void {
  program
    .command('sync')
    .description(
      'Bring every location up to the last complete hour now (re-reading the lookback), and fetch latest readings and forecasts; the scheduler does this nightly',
    )
    .option('--now', 'run the sync at once (required: the nightly one is `envdata scheduler`)')
    .option('--dry-run', 'print the calls a sync would make now; write nothing')
    .option(
      '--json',
      'with --dry-run: print the plan as one JSON document (shape: docs/json-output.md)',
    )
    .addOption(allowOverBudgetOption())
    .option(
      '--wait',
      'block until the sync run and its snapshots are finished, with a local worker; exit 1 if chunks failed, hours were quarantined or values were set aside',
    )
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .action(
      async (options: {
        now?: boolean;
        dryRun?: boolean;
        json?: boolean;
        wait?: boolean;
        concurrency?: string;
        allowOverBudget?: boolean;
      }) => {
        if (!options.now && !options.dryRun) {
          throw usageError(
            '`envdata sync` needs --now (or --dry-run); the nightly sync is run by `envdata scheduler`',
          );
        }
        if (options.dryRun && options.wait)
          throw usageError('--wait makes no sense with --dry-run');
        if (options.json && !options.dryRun) {
          throw usageError(
            '--json only goes with --dry-run: a sync that runs prints progress for people; follow it with `envdata status RUN --json`',
          );
        }
        const config = context.config;
        const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
        const [
          { estimateSync, formatLeftToBackfill, startSync },
          { readPlanCost },
          { formatPlanCost },
          { refuseOverBudget },
          { formatOverBudgetNote },
        ] = await Promise.all([
          import('../../sync/start-sync.js'),
          import('../read-plan-cost.js'),
          import('../format-plan-cost.js'),
          import('../refuse-over-budget.js'),
          import('../format-over-budget-note.js'),
        ]);
        if (options.dryRun) {
          await context.withApp(async (app) => {
            const now = new Date();
            const sync = await estimateSync(app, now);
            const cost = await readPlanCost(app, sync.estimate.calls + sync.snapshots, 'sync');
            if (options.json) {
              const { toSyncPlanJson } = await import('../json/sync-plan-json.js');
              printJsonDocument(context, toSyncPlanJson(sync, config, now, cost));
              return;
            }
            const { estimate: e, locations, snapshots, leftToBackfill } = sync;
            context.print(
              `would sync ${locations} location(s): ${e.calls + snapshots} API call(s) — ${e.calls} history ` +
                `(${e.chunks} chunk(s), ~${e.expectedRows} rows) + ${snapshots} latest/forecast`,
            );
            for (const [dataset, d] of Object.entries(e.byDataset)) {
              context.print(`  ${dataset}: ${d.chunks} chunk(s), ~${d.expectedRows} rows`);
            }
            for (const line of formatPlanCost(cost, config.rateLimits)) context.print(`  ${line}`);
            if (cost.overBudget) {
              const note = formatOverBudgetNote('sync --now', 'refused', undefined);
              context.print(`  ${note}`);
            }
            for (const left of leftToBackfill) context.print(`  ${formatLeftToBackfill(left)}`);
          });
          return;
        }
        requireApiKey(config);
        await context.withApp(
          async (app) => {
            // A sync beyond what is left of the month's budget is refused before anything is written.
            const spending = {
              what: 'this sync',
              use: 'sync' as const,
              calls: async () => {
                const sync = await estimateSync(app);
                return sync.estimate.calls + sync.snapshots;
              },
            };
            const cost = await refuseOverBudget(app, spending, options.allowOverBudget);
            const start = await startSync(app);
            context.print(
              `sync run ${start.runId}: ${start.gaps} range(s) for ${start.locations} location(s), ${start.snapshots} snapshot job(s)`,
            );
            if (cost?.overBudget) {
              const budgetCalls = config.quota.budgetPerMonth;
              context.print(`  ${formatOverBudgetNote('sync --now', 'started', budgetCalls)}`);
            }
            for (const left of start.leftToBackfill)
              context.print(`  ${formatLeftToBackfill(left)}`);
            if (!options.wait) return;
            const { followRuns } = await import('../follow-runs.js');
            await followRuns(app, context, [start.runId], {
              localWorker: true,
              concurrency,
              jobIds: start.snapshotJobIds,
            });
          },
          config,
          { queue: true, tracing: 'sync' },
        );
      },
    );

  program
    .command('scheduler')
    .description(
      'Keep the nightly sync scheduled (ENVDATA_SYNC_CRON, UTC) and plan it when it fires; safe to run several',
    )
    .action(async () => {
      const config = context.config;
      const { runUntilSignal } = await import('../run-until-signal.js');
      await context.withApp(
        (app) =>
          runUntilSignal(
            app,
            { scheduler: true },
            { stopping: 'stopping (a second signal stops at once)', stopped: 'scheduler stopped' },
          ),
        config,
        { queue: true, tracing: 'sync' },
      );
    });
}
