import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import type { CommandContext } from '../command-context.js';
import { parseWholeNumber } from '../parse-cli-values.js';
import { runUntilSignal } from '../run-until-signal.js';

export function parseConcurrency(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return parseWholeNumber('--concurrency', value, { min: 1, max: 1000 });
}

export function registerWorkerCommand(program: Command, context: CommandContext): void {
  program
    .command('worker')
    .description(
      'Work on the queue until SIGTERM/SIGINT: fetch, normalize and land chunks under the shared rate limit (run any number, on any host)',
    )
    .option(
      '--concurrency <n>',
      'chunks in flight in this process (default ENVDATA_WORKER_CONCURRENCY)',
    )
    .action(async (options: { concurrency?: string }) => {
      const config = context.config;
      const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
      requireApiKey(config);
      await context.withApp(
        (app) =>
          runUntilSignal(
            app,
            { worker: { concurrency } },
            {
              stopping: 'stopping: finishing in-flight chunks (a second signal stops at once)',
              started: () =>
                app.logger.info({ concurrency, prefix: config.queuePrefix }, 'worker started'),
              stopped: 'worker stopped',
            },
          ),
        config,
        { queue: true },
      );
    });
}
