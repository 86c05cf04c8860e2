import type { Command } from 'commander';
import { EnvdataError } from '../../errors/envdata-error.js';
import { IngestWorker } from '../../worker/ingest-worker.js';
import type { CommandContext } from '../command-context.js';
import { parseWholeNumber } from '../parse-cli-values.js';
import { shutdownSignal } from '../shutdown-signal.js';

export function parseConcurrency(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return parseWholeNumber('--concurrency', value, { min: 1, max: 1000 });
}

export function requireApiKey(context: CommandContext): void {
  if (!context.config.service.apiKey) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      'ENVDATA_API_KEY is not set: this command calls the service and needs your API key (the simulator accepts envdata-demo-key)',
    );
  }
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
      requireApiKey(context);
      await context.withApp(
        async (app) => {
          // Listening before starting: a signal during start-up stops the worker gracefully too.
          const stop = shutdownSignal((s) =>
            app.logger.info(
              { signal: s },
              'stopping: finishing in-flight chunks (a second signal stops at once)',
            ),
          );
          const worker = IngestWorker.start(app, { concurrency });
          app.logger.info({ concurrency, prefix: config.queuePrefix }, 'worker started');
          const signal = await stop;
          await worker.close();
          app.logger.info({ signal }, 'worker stopped');
        },
        config,
        { queue: true },
      );
    });
}
