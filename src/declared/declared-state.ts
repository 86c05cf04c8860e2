import type { Uses } from '../runtime/app-resources.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { cachedGeocoder } from '../locations/cached-geocoder.js';
import { listLocations } from '../locations/list-locations.js';
import type { DeclaredFile } from './declared-file.js';
import type { DeclaredPlan } from './declared-plan.js';
import { summaryOf } from './summary-of.js';
import { planDeclaredState } from './plan-declared-state.js';
import { resolveDeclaredLocations, type ResolvedLocations } from './resolve-declared-locations.js';

/**
 * Resolves a file's locations for `envdata plan` and `envdata apply`: places not registered yet
 * are geocoded, the only calls to the service (`useService` false refuses them instead), each
 * answer kept (`cachedGeocoder`) so that the next plan of the same file makes no call. Every
 * problem (an ambiguous place, a country the point is not in) is one `VALIDATION_FAILED`.
 */
export async function resolveDeclared(
  app: Uses<'db' | 'serviceClient'>,
  file: DeclaredFile,
  useService: boolean,
): Promise<ResolvedLocations> {
  const geocoder = useService ? cachedGeocoder(app.db, app.serviceClient) : undefined;
  const resolved = await resolveDeclaredLocations(
    file.locations,
    await listLocations(app.db),
    geocoder,
  );
  if (resolved.problems.length > 0) {
    throw new EnvdataError(
      'VALIDATION_FAILED',
      `${file.fileName} has ${resolved.problems.length} problem(s), nothing was done:\n${resolved.problems.map((p) => `  ${p}`).join('\n')}`,
      { details: { problems: resolved.problems } },
    );
  }
  return resolved;
}

/**
 * `envdata plan` and, with `apply`, `envdata apply`: the plan is made, or done
 * (`planDeclaredState`) and the run's first chunks dispatched. With `expected`, the plan an
 * operator approved, apply refuses to do anything else (the warehouse changed meanwhile) and
 * writes nothing.
 */
export async function declaredState(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  file: DeclaredFile,
  resolved: ResolvedLocations,
  options: { apply: boolean; expected?: DeclaredPlan; now?: Date },
): Promise<DeclaredPlan> {
  const plan = await planDeclaredState(app, file, resolved, {
    apply: options.apply,
    ...(options.now && { now: options.now }),
    ...(options.expected && { expected: summaryOf(options.expected) }),
  });
  // Committed: its first chunks go on the queue, as `envdata backfill` puts a new run's.
  if (plan.runId !== undefined) await createFeeder(app).topUp();
  return plan;
}
