import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Command } from 'commander';
import type { StartOptions } from '../../app.js';
import { requireApiKey } from '../../config/require-api-key.js';
import { errorCode } from '../../errors/pg-errors.js';
import type { CommandContext } from '../command-context.js';
import { parseConcurrency, parseWholeNumber } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';

/** Where `--metrics-port` listens when `--metrics-host` does not say: this host only. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * `--metrics-port` and `--metrics-host` → where the worker's HTTP server listens, or `undefined`
 * without a port. Port 0 takes a free one (logged). Throws a usage error (exit 2) for a port
 * that is not one, a host that is neither an IP address nor a host name, or a host without a
 * port.
 */
export function parseMetricsListen(options: {
  metricsPort?: string;
  metricsHost?: string;
}): { host: string; port: number } | undefined {
  const { metricsPort, metricsHost } = options;
  if (metricsPort === undefined) {
    if (metricsHost !== undefined) {
      throw usageError('--metrics-host needs --metrics-port: add --metrics-port 9464, say');
    }
    return undefined;
  }
  const port = parseWholeNumber(
    '--metrics-port',
    metricsPort,
    { min: 0, max: 65_535 },
    'a port number',
  );
  const host = metricsHost ?? DEFAULT_METRICS_HOST;
  // A name's last label is never all digits (RFC 3696 §2): `1.2.3.4.5` or `999.1.1.1` is a
  // mistyped address, not a name to look up.
  if (
    isIP(host) === 0 &&
    (!/^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
      host,
    ) ||
      /(^|\.)\d+$/.test(host))
  ) {
    throw usageError(
      `--metrics-host must be an IP address or a host name such as 127.0.0.1 or 0.0.0.0 (got "${host}")`,
    );
  }
  return { host, port };
}

/**
 * Throws a usage error (exit 2) when `host`, a name, does not resolve: the HTTP server could not
 * listen on it, and its failure (ENOTFOUND) would read as Postgres or Redis being unreachable.
 */
export async function assertMetricsHostResolves(host: string): Promise<void> {
  if (isIP(host) !== 0) return;
  try {
    await lookup(host);
  } catch (error) {
    throw usageError(
      `--metrics-host "${host}" does not resolve (${errorCode(error) ?? 'lookup failed'}): use an IP address such as 127.0.0.1 or 0.0.0.0, or a name that resolves`,
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
    .option(
      '--metrics-port <port>',
      'serve GET /metrics (Prometheus) and GET /healthz on this port (0 = any free port)',
    )
    .option(
      '--metrics-host <host>',
      `interface for --metrics-port (default ${DEFAULT_METRICS_HOST}; 0.0.0.0 for every interface)`,
    )
    .action(
      async (options: { concurrency?: string; metricsPort?: string; metricsHost?: string }) => {
        const config = context.config;
        const concurrency = parseConcurrency(options.concurrency, config.worker.concurrency);
        const listen = parseMetricsListen(options);
        if (listen) await assertMetricsHostResolves(listen.host);
        requireApiKey(config);
        const [{ metricsRoute }, { runUntilSignal }] = await Promise.all([
          import('../../runtime/metrics-route.js'),
          import('../run-until-signal.js'),
        ]);
        await context.withApp(
          (app) => {
            const components: StartOptions = {
              worker: { concurrency },
              ...(listen && { http: { ...listen, routes: [metricsRoute(app)] } }),
            };
            return runUntilSignal(app, components, {
              stopping: 'stopping: finishing in-flight chunks (a second signal stops at once)',
              started: () =>
                app.logger.info(
                  {
                    concurrency,
                    prefix: app.queues.prefix,
                    ...(app.http && { metrics: `${app.http.url}/metrics` }),
                  },
                  'worker started',
                ),
              stopped: 'worker stopped',
            });
          },
          config,
          { queue: true, tracing: 'worker' },
        );
      },
    );
}
