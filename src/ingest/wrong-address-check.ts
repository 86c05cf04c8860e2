import type { Kysely } from 'kysely';
import { stopRun } from '../ledger/stop-run.js';
import type { Logger } from '../logging/create-logger.js';
import type { Database } from '../warehouse/schema.js';
import { WrongAddressGuard } from './wrong-address-guard.js';

/** Records one answer of run `runId`; `true` when the run is judged misaddressed (and stopped). */
export type WrongAddressCheck = (runId: number, suspicious: boolean) => Promise<boolean>;

/**
 * Stops a run when most of its answers look like a wrong base address (`WrongAddressGuard`):
 * nothing such answers said counts as coverage, and the message names `baseUrl`.
 */
export function wrongAddressCheck(
  db: Kysely<Database>,
  baseUrl: string,
  log: Logger,
): WrongAddressCheck {
  const guard = new WrongAddressGuard();
  return async (runId, suspicious) => {
    const verdict = guard.observe(runId, suspicious);
    if (!verdict) return false;
    const message =
      `${verdict.suspicious} of the last ${verdict.answers} answers for run ${runId} were 404 or ` +
      `not the service's: check ENVDATA_BASE_URL (${baseUrl}); nothing they said counts as ` +
      `coverage. Then \`envdata resume ${runId}\` (a location truly outside the service's ` +
      'coverage answers 404 too: remove it with `envdata locations remove`)';
    if (await stopRun(db, runId, 'WRONG_ADDRESS', message, { forgetNotCovered: true })) {
      log.error({ runId }, message);
    }
    return true;
  };
}
