import type { App } from '../app.js';
import type { Config } from '../config/config.js';
import type { loadConfig } from '../config/load-config.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { redisTargetOf } from '../queue/redis-target.js';
import type { ProcessRole } from '../tracing/tracing.js';
import { databaseNameOf } from '../warehouse/database-url.js';
import type { CliIo } from './cli-io.js';
import { StatusLine } from './status-line.js';

/** What every command receives: its I/O, the config (loaded on demand) and an app to use. */
export class CommandContext {
  private loaded: Config | undefined;
  private loader: typeof loadConfig | undefined;
  /** Set by a command that finished but must report failure (exit 1). */
  exitCode = 0;
  /**
   * Standard error when it is a terminal: log lines of the apps built here and a progress bar
   * share it without overwriting each other. `undefined` otherwise (logs go to standard error).
   */
  readonly statusLine: StatusLine | undefined;

  constructor(readonly io: CliIo) {
    this.statusLine = io.stderr.isTTY ? new StatusLine(io.stderr) : undefined;
  }

  /**
   * Loads what validates the environment (zod and the schemas of src/config/), before a
   * command's action runs (`buildProgram` awaits it in a `preAction` hook): `--help` and usage
   * errors never need it.
   */
  async prepare(): Promise<void> {
    this.loader ??= (await import('../config/load-config.js')).loadConfig;
  }

  /** Validates the environment; a bad value throws `CONFIG_INVALID` (exit 2). */
  get config(): Config {
    if (!this.loader) throw new Error('CommandContext: config read before prepare()');
    this.loaded ??= this.loader(this.io.env, { isTty: Boolean(this.io.stderr.isTTY) });
    return this.loaded;
  }

  /**
   * Runs `body` with an app built from the config and always closes it. Unless `migrated` is
   * false, the database must be at the latest migration first: an old schema is a clear
   * "run envdata migrate", never a crash halfway. With `queue`, the queue's backend (Redis, unless
   * ENVDATA_QUEUE_BACKEND=postgres) must answer too: a command
   * that dispatches work checks both before it writes anything, and exits 1 with the one-line
   * message of the one that does not answer. With `tracing` (the process's role), the
   * OpenTelemetry variables, when set, start traces first (`startTracing`: the SDK is loaded
   * only then), stopped once the app is closed.
   */
  async withApp<T>(
    body: (app: App) => Promise<T>,
    config: Config = this.config,
    options: { migrated?: boolean; queue?: boolean; tracing?: ProcessRole } = {},
  ): Promise<T> {
    const tracing = options.tracing && (await import('../tracing/tracing.js'));
    const traced =
      tracing &&
      (await tracing.startTracing(options.tracing!, this.io.env, [
        config.service.apiKey,
        config.console.token,
        ...config.notify.targets.map((t) => t.url),
      ]));
    // Loaded here, not at the top: `--help` and the commands that open nothing never load the
    // app's packages (pg, Kysely, BullMQ, ioredis, express, prom-client).
    const { createApp } = await import('../app.js');
    const app = createApp(config, { logDestination: this.statusLine });
    try {
      if (options.migrated !== false) await assertMigrated(app);
      if (options.queue) {
        // Only then: BullMQ and ioredis stay unloaded for a command that only reads the database.
        const { assertQueueAnswers } = await import('../queue/assert-queue-answers.js');
        await assertQueueAnswers({
          backend: config.queueBackend,
          redis: redisTargetOf(config),
          databaseUrl: config.databaseUrl,
        });
      }
      return await body(app);
    } finally {
      await app.close();
      if (traced) await tracing.shutdownTracing();
    }
  }

  print(line = ''): void {
    this.io.stdout.write(`${line}\n`);
  }
}

async function assertMigrated(app: App): Promise<void> {
  const [{ assertDatabaseAnswers }, { pendingMigrations }] = await Promise.all([
    import('../warehouse/create-database.js'),
    import('../warehouse/migrate-to-latest.js'),
  ]);
  await assertDatabaseAnswers(app.config.databaseUrl);
  const pending = await pendingMigrations(app.db);
  if (pending.length > 0) {
    throw new EnvdataError(
      'MIGRATION_FAILED',
      `database ${databaseNameOf(app.config.databaseUrl)} is ${pending.length} migration(s) behind this version of envdata: run \`envdata migrate\` first`,
    );
  }
}
