import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { runDemo } from '../../demo/run-demo.js';
import { DEMO_API_KEY } from '../../simulator/simulator-options.js';
import { startSimulator } from '../../simulator/start-simulator.js';
import type { CommandContext } from '../command-context.js';
import { watchRun } from '../watch-run.js';

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description(
      'Run envdata end to end against the built-in simulator: migrate, register 4 locations, backfill months of pollen and years of weather, show a query',
    )
    .action(async () => {
      // Validate the environment first: a bad variable stops the demo before it starts anything.
      void context.config;
      const simulator = await startSimulator();
      try {
        const config = loadConfig(
          {
            ENVDATA_WORKER_CONCURRENCY: '16',
            ...context.io.env,
            ENVDATA_BASE_URL: simulator.url,
            ENVDATA_API_KEY: DEMO_API_KEY,
            // The simulator has no rate limit; a real plan's limit would only slow the demo.
            ENVDATA_RATE_LIMIT: 'off',
          },
          { isTty: Boolean(context.io.stderr.isTTY) },
        );
        context.print(`simulator of the Environmental Data Service listening at ${simulator.url}`);
        const started = Date.now();
        const outcome = await context.withApp(
          (app) =>
            runDemo(app, {
              pollenDays: 92,
              weatherDays: 3 * 365,
              print: (l) => context.print(l),
              watch: (runId) =>
                watchRun(app.db, runId, {
                  interactive: Boolean(context.io.stderr.isTTY),
                  stream: context.io.stderr,
                  logger: app.logger,
                }),
            }),
          config,
          { migrated: false },
        );
        const stats = simulator.stats();
        context.print('');
        context.print(
          `${stats.total} API call(s), ${outcome.rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s — ` +
            'see `envdata status`, docs/warehouse.md; run it again: the ledger fetches nothing twice',
        );
        if (outcome.failed > 0) context.exitCode = 1;
      } finally {
        await simulator.close();
      }
    });
}
