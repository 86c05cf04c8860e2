import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { runDemo } from '../../demo/run-demo.js';
import { DEMO_API_KEY } from '../../simulator/simulator-options.js';
import { startSimulator } from '../../simulator/start-simulator.js';
import type { CommandContext } from '../command-context.js';

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description(
      'Run envdata end to end on the built-in defaults against the built-in simulator: migrate, register locations, ingest, show a query',
    )
    .action(async () => {
      // Validate the environment first: a bad variable stops the demo before it starts anything.
      void context.config;
      const simulator = await startSimulator();
      try {
        const config = loadConfig(
          { ...context.io.env, ENVDATA_BASE_URL: simulator.url, ENVDATA_API_KEY: DEMO_API_KEY },
          { isTty: Boolean(context.io.stderr.isTTY) },
        );
        context.print(`simulator of the Environmental Data Service listening at ${simulator.url}`);
        const started = Date.now();
        const outcome = await context.withApp(
          (app) =>
            runDemo(app, { pollenDays: 30, weatherDays: 90, print: (l) => context.print(l) }),
          config,
          { migrated: false },
        );
        const stats = simulator.stats();
        context.print('');
        context.print(
          `${stats.total} API call(s) in ${((Date.now() - started) / 1000).toFixed(1)} s; run ${outcome.runId} — see \`envdata status\`, docs/warehouse.md`,
        );
        if (outcome.failed > 0) context.exitCode = 1;
      } finally {
        await simulator.close();
      }
    });
}
