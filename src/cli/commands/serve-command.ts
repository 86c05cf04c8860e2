import type { Command } from 'commander';
import { isLoopbackHost } from '../../console/console-access.js';
import type { CommandContext } from '../command-context.js';
import { DEFAULT_SERVE_HOST, DEFAULT_SERVE_PORT, parseServeOptions } from '../serve-options.js';
import { usageError } from '../usage-error.js';

export function registerServeCommand(program: Command, context: CommandContext): void {
  program
    .command('serve')
    .description(
      'Serve the operations console (runs, coverage, freshness, rate limit, queues), /metrics, /healthz and /readyz until SIGTERM/SIGINT; beyond loopback it needs ENVDATA_CONSOLE_TOKEN',
    )
    .option('--host <address>', `interface to listen on (default ${DEFAULT_SERVE_HOST}, loopback)`)
    .option('--port <n>', `TCP port, 0 for any free one (default ${DEFAULT_SERVE_PORT})`)
    .action(async (options: { host?: string; port?: string }) => {
      const serve = parseServeOptions(options);
      const config = context.config;
      if (!isLoopbackHost(serve.host) && !config.console.token) {
        throw usageError(
          `--host ${serve.host} is beyond loopback: set ENVDATA_CONSOLE_TOKEN (16+ characters, e.g. \`openssl rand -hex 24\`) so that every request must carry it, or keep the default --host ${DEFAULT_SERVE_HOST}`,
        );
      }
      // Loaded only here: express, Bull Board and prom-client are for the commands that serve.
      const [{ serveRoutes }, { runUntilSignal }] = await Promise.all([
        import('../serve-routes.js'),
        import('../run-until-signal.js'),
      ]);
      // Not `migrated`: the console starts and answers /readyz 503 while migrations are pending.
      await context.withApp(
        (app) =>
          runUntilSignal(
            app,
            { http: { ...serve, routes: serveRoutes(app, serve) } },
            {
              stopping: 'stopping: answering requests in progress (a second signal stops at once)',
              started: () =>
                app.logger.info(
                  {
                    url: app.http?.url,
                    actions: config.console.token ? 'enabled' : 'disabled',
                  },
                  'console serving',
                ),
              stopped: 'console stopped',
            },
          ),
        config,
        { migrated: false, tracing: 'serve' },
      );
    });
}
