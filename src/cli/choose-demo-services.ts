import { isEnvdataError } from '../errors/envdata-error.js';
import { SQLSTATE, errorCode } from '../errors/pg-errors.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { describeRedisTarget, redisTargetOf } from '../queue/redis-target.js';
import { maskUrl } from '../warehouse/database-url.js';
import type { CommandContext } from './command-context.js';
import { localDirectoryOf } from './local-environment.js';
import { localPostgresExports, queueNeedsPostgres } from './local-postgres-exports.js';
import { describeLocalPostgres, startLocalWarehouse } from './start-local-warehouse.js';

/** What the demo runs on when the environment's services do not answer. */
export interface DemoServices {
  /** Variables that the demo's config takes over the environment's. */
  readonly env: Readonly<Record<string, string>>;
  /** Lines to print at the end: how to go on with the same data. */
  readonly continueWith: readonly string[];
}

/**
 * The demo's fallbacks, so that `npm run demo` works on a bare machine: nothing answers at
 * DATABASE_URL → the local PostgreSQL of `envdata local` (started, created and migrated on first
 * use); nothing answers at REDIS_URL → the queue in PostgreSQL. Each says so in one line. Only the
 * demo falls back: every other command fails and names what is down, as it must in production.
 */
export async function chooseDemoServices(context: CommandContext): Promise<DemoServices> {
  const config = context.config;
  const env: Record<string, string> = {};
  const continueWith: string[] = [];
  let localUrl: string | undefined;
  if (await nothingAnswersAt(config.databaseUrl)) {
    const { local } = await startLocalWarehouse(context, localDirectoryOf(context.io.env));
    context.print(
      `nothing answers at DATABASE_URL ${maskUrl(config.databaseUrl)}: ${describeLocalPostgres(local)}`,
    );
    env.DATABASE_URL = localUrl = local.url;
    continueWith.push(
      `\`envdata local stop\` stops the local PostgreSQL (its data stays in ${local.layout.dir}).`,
    );
  }
  const queueOnPostgres = await queueNeedsPostgres(config);
  if (queueOnPostgres && config.queueBackend === 'redis') {
    context.print(
      `nothing answers at ${describeRedisTarget(redisTargetOf(config))}: the queue lives in PostgreSQL instead (ENVDATA_QUEUE_BACKEND=postgres)`,
    );
    env.ENVDATA_QUEUE_BACKEND = 'postgres';
  }
  if (Object.keys(env).length === 0) return { env, continueWith };
  return {
    env,
    continueWith: [
      "To go on with the README's commands on the same data, export these in your shell:",
      ...localPostgresExports({ databaseUrl: localUrl, queueOnPostgres }),
      ...continueWith,
    ],
  };
}

/**
 * Whether no PostgreSQL answers at `url` at all. One that answers but refuses the login, or lacks
 * the database, is the user's server: the demo uses it (creating the database) or fails as
 * every command does.
 */
async function nothingAnswersAt(url: string): Promise<boolean> {
  try {
    await assertDatabaseAnswers(url);
    return false;
  } catch (error) {
    if (!isEnvdataError(error) || error.code !== 'DATABASE_UNAVAILABLE') throw error;
    const code = errorCode(error.cause);
    return !(
      code === SQLSTATE.invalidCatalogName ||
      code === SQLSTATE.invalidPassword ||
      code === SQLSTATE.invalidAuthorization ||
      code === SQLSTATE.cannotConnectNow
    );
  }
}
