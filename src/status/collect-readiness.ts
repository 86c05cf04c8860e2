import type { Uses } from '../runtime/app-resources.js';
import { coerceError } from '../errors/coerce-error.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { pendingMigrations } from '../warehouse/migrate-to-latest.js';

/** One check of `/readyz`: passed, or what failed and what to do. */
export interface ReadinessCheck {
  readonly ok: boolean;
  readonly problem?: string;
}

/** What `GET /readyz` answers: 200 when `ready`, else 503 with the checks that failed. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly postgres: ReadinessCheck;
    /** Redis, or the database again on ENVDATA_QUEUE_BACKEND=postgres. */
    readonly queue: ReadinessCheck & { readonly backend: string };
    readonly migrations: ReadinessCheck & { readonly pending?: readonly string[] };
  };
}

/**
 * Readiness of this process (`/readyz`): Postgres answers, the queue's backend answers, and the
 * database is at the latest migration — the same probes `envdata status` makes
 * (`collectStatus`), without its queue depths and workers, so a load balancer may ask often.
 * Liveness is `/healthz`: an outage makes a process unready, never a reason to restart it.
 */
export async function collectReadiness(app: Uses<'config' | 'db' | 'queues'>): Promise<Readiness> {
  const postgres = await check(() => assertDatabaseAnswers(app.config.databaseUrl));
  const queue = await check(() => app.queues.assertAnswers());
  let migrations: Readiness['checks']['migrations'];
  if (!postgres.ok) {
    migrations = { ok: false, problem: 'not checked: Postgres does not answer' };
  } else {
    try {
      const pending = await pendingMigrations(app.db);
      migrations =
        pending.length === 0
          ? { ok: true }
          : {
              ok: false,
              pending,
              problem: `${pending.length} migration(s) pending: run \`envdata migrate\``,
            };
    } catch (error) {
      migrations = { ok: false, problem: coerceError(error).message };
    }
  }
  return {
    ready: postgres.ok && queue.ok && migrations.ok,
    checks: { postgres, queue: { ...queue, backend: app.config.queueBackend }, migrations },
  };
}

async function check(probe: () => Promise<void>): Promise<ReadinessCheck> {
  try {
    await probe();
    return { ok: true };
  } catch (error) {
    // The envdata errors name the service and the next step, and never a password.
    return {
      ok: false,
      problem: isEnvdataError(error) ? error.message : 'unexpected error (see the log)',
    };
  }
}
