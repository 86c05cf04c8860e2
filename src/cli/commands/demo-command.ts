import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { EnvdataError } from '../../errors/envdata-error.js';
import { DEMO_API_KEY } from '../../simulator/simulator-options.js';
import type { CommandContext } from '../command-context.js';
import { ENVDATA_BIN } from '../envdata-bin.js';

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description(
      'Run envdata end to end against the built-in simulator: migrate, register 4 locations, backfill 3 months of pollen and 10 years of weather, show a query (on a local PostgreSQL, and with the queue in it, when nothing answers at DATABASE_URL or REDIS_URL)',
    )
    .action(async () => {
      // Validate the environment first: a bad variable stops the demo before it starts anything.
      void context.config;
      const [
        { loadConfig },
        { chooseDemoServices },
        { runDemo },
        { ensureDatabase },
        { watchRun },
      ] = await Promise.all([
        import('../../config/load-config.js'),
        import('../choose-demo-services.js'),
        import('../../demo/run-demo.js'),
        import('../../warehouse/ensure-database.js'),
        import('../watch-run.js'),
      ]);
      // On a bare machine: the local PostgreSQL, and the queue in it (one line each).
      const services = await chooseDemoServices(context);
      // The simulator gets a process (a core) of its own, as the real service would be elsewhere.
      const simulator = spawn(process.execPath, [ENVDATA_BIN, 'simulate', '--port', '0'], {
        env: { PATH: context.io.env.PATH ?? '', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const [line] = (await once(createInterface({ input: simulator.stdout }), 'line')) as [
          string,
        ];
        const url = /listening at (http:\/\/\S+)/.exec(line)?.[1];
        if (!url) throw new EnvdataError('INTERNAL', `the simulator did not start: ${line}`);
        const config = loadConfig(
          {
            ENVDATA_WORKER_CONCURRENCY: '32',
            ...context.io.env,
            ...services.env,
            ENVDATA_BASE_URL: url,
            ENVDATA_API_KEY: DEMO_API_KEY,
            // The simulator has no rate limit; a real plan's limit would only slow the demo.
            ENVDATA_RATE_LIMIT: 'off',
          },
          { isTty: Boolean(context.io.stderr.isTTY) },
        );
        context.print(`simulator of the Environmental Data Service listening at ${url}`);
        // A queue in Postgres is checked by connecting to the database, which the demo may still
        // have to create (runDemo migrates it): create it first.
        if (config.queueBackend === 'postgres') await ensureDatabase(config.databaseUrl);
        const started = Date.now();
        const outcome = await context.withApp(
          (app) =>
            runDemo(app, {
              days: { pollen: 92, weather: 10 * 365 },
              print: (l) => context.print(l),
              watch: (runId) =>
                watchRun(app.db, runId, {
                  statusLine: context.statusLine,
                  logger: app.logger,
                  outages: app.outages,
                }),
            }),
          config,
          { migrated: false, queue: true },
        );
        const stats = (await (await fetch(`${url}/__admin/stats`)).json()) as { total: number };
        context.print('');
        context.print(
          `${stats.total} API call(s), ${outcome.rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s — ` +
            'see `envdata status`, `envdata serve` (the console), docs/warehouse.md; run it again: the ledger fetches nothing twice',
        );
        if (services.continueWith.length > 0) context.print('');
        for (const line of services.continueWith) context.print(line);
        if (outcome.failed > 0) context.exitCode = 1;
      } finally {
        const exited = once(simulator, 'exit');
        simulator.kill('SIGTERM');
        await exited;
      }
    });
}
