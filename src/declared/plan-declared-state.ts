import type { Kysely } from 'kysely';
import type { Uses } from '../runtime/app-resources.js';
import { historyWindowScope } from '../dispatch/history-window-scope.js';
import { HISTORY_STARTS } from '../datasets/dataset-coverage.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { createRunWithGaps } from '../ledger/create-run-with-gaps.js';
import { findGaps, type Gap } from '../ledger/find-gaps.js';
import { lockPlanning } from '../ledger/lock-planning.js';
import { openRunPlans } from '../ledger/open-run-plans.js';
import { restoreLocations, retireLocations } from '../ledger/remove-locations.js';
import { insertLocations } from '../locations/insert-location.js';
import { listLocations } from '../locations/list-locations.js';
import type { Location } from '../locations/location.js';
import { explainPlan } from '../planner/explain-plan.js';
import { describeOverlap, leaveOpenPlans } from '../planner/leave-open-plans.js';
import { estimateGaps, learnedWindowHours } from '../planner/plan-run.js';
import type { Database } from '../warehouse/schema.js';
import { START_WINDOW_HOURS } from '../windows/learned-window.js';
import { countHours, lastCompleteHourEnd } from '../windows/tile-windows.js';
import type { DeclaredFile } from './declared-file.js';
import type { DatasetHistory, DeclaredPlan } from './declared-plan.js';
import { summaryOf } from './summary-of.js';
import { diffDeclaredLocations } from './diff-declared-locations.js';
import type { ResolvedLocations } from './resolve-declared-locations.js';
import { parseSince } from './since-date.js';
import { storeDriftPolicies } from '../ledger/drift-policy.js';
import { storeDeclaration } from './store-declaration.js';

/**
 * Plans, or with `apply` does, what makes the warehouse match a declared file, in one
 * transaction: the locations first (add, retire, restore: `diffDeclaredLocations`), then one
 * backfill run for every hour missing between each dataset's `since` and the last complete hour
 * (`findGaps`, minus what unfinished runs will fetch), recorded with the file's digest; the
 * `since`s and groups as written are kept for `export-config` (`storeDeclaration`). A plan
 * runs the same steps and rolls them back, so what it shows is what apply does. Both hold the
 * planning lock (`lockPlanning`) from the start: a second apply waits, then finds nothing left.
 * A refused change (a moved point) is a `VALIDATION_FAILED` listing each.
 */
export async function planDeclaredState(
  app: Uses<'config' | 'db'>,
  file: DeclaredFile,
  resolved: ResolvedLocations,
  options: {
    apply: boolean;
    now?: Date;
    /** `summaryOf` the plan the operator approved: anything else is refused. */
    expected?: string;
  },
): Promise<DeclaredPlan> {
  const trx = await app.db.startTransaction().execute();
  try {
    // A plan takes it too: its rolled-back inserts would otherwise wait on an apply's, then clash.
    await lockPlanning(trx);
    const plan = await planIn(trx, app, file, resolved, options);
    if (options.expected !== undefined && summaryOf(plan) !== options.expected) {
      throw new EnvdataError(
        'CONFLICT',
        'the warehouse changed since the plan was shown (another apply, a backfill or a location command): nothing was done; run `envdata apply` again to see the new plan',
      );
    }
    await (options.apply ? trx.commit() : trx.rollback()).execute();
    return plan;
  } catch (error) {
    await trx.rollback().execute();
    throw error;
  }
}

async function planIn(
  db: Kysely<Database>,
  app: Uses<'config'>,
  file: DeclaredFile,
  resolved: ResolvedLocations,
  options: { apply: boolean; now?: Date },
): Promise<DeclaredPlan> {
  const { config } = app;
  const now = options.now ?? new Date();
  const changes = diffDeclaredLocations(resolved.wanted, await listLocations(db));
  if (changes.refused.length > 0) {
    throw new EnvdataError(
      'VALIDATION_FAILED',
      `${file.fileName} asks for what envdata never does, nothing was done:\n${changes.refused.map((r) => `  ${r}`).join('\n')}`,
      { details: { refused: changes.refused } },
    );
  }
  const added = await insertLocations(
    db,
    changes.add.map((w) => w.input),
  );
  await retireLocations(db, changes.retire);
  await restoreLocations(db, changes.restore);
  await storeDriftPolicies(
    db,
    Object.fromEntries(file.datasets.flatMap((d) => (d.drift ? [[d.dataset, d.drift]] : []))),
    now,
  );
  await storeDeclaration(db, file.datasets, resolved.wanted, now);
  const active: { location: Location; group: string | undefined }[] = [
    ...[...changes.keep, ...changes.restore].map((location) => ({
      location,
      group: changes.declaredAs.get(location.locationId)?.group,
    })),
    ...added.map((location, i) => ({ location, group: changes.add[i]!.group })),
  ];

  const to = lastCompleteHourEnd(now);
  const windowAuto = config.ingest.historyWindowAuto;
  const windowHours = windowAuto ? START_WINDOW_HOURS : config.ingest.historyWindowHours;
  const found: Gap[] = [];
  const notes = new Set<string>();
  const spans: { dataset: DatasetHistory['dataset']; from: Date; ids: number[] }[] = [];
  for (const d of file.datasets) {
    const bySince = new Map<string, SubPlan>();
    for (const { location, group } of active) {
      const own = group === undefined ? undefined : d.groups.get(group);
      const since = own ?? d.since;
      const sub = bySince.get(since) ?? { ids: [], groups: new Set<string>(), others: false };
      bySince.set(since, sub);
      sub.ids.push(location.locationId);
      if (own === undefined) sub.others = true;
      else sub.groups.add(group!);
    }
    for (const [since, { ids, ...members }] of bySince) {
      const scope = bySince.size > 1 ? scopeOf(members, since) : undefined;
      const parsed = parseSince(since);
      if (!parsed.ok) throw new Error('unchecked since'); // parseDeclaredFile checked it
      const from = parsed.at(now);
      const gaps = await findGaps(db, {
        datasets: [d.dataset],
        locationIds: ids,
        from,
        to,
        recheckMs: config.ingest.recheckMs,
        noDataRecheckMs: config.ingest.noDataRecheckMs,
        now,
      });
      found.push(...gaps);
      spans.push({ dataset: d.dataset, from, ids });
      const request = { datasets: [d.dataset], from, to, windowHours, now, scope };
      for (const note of explainPlan(request, gaps)) {
        notes.add(note);
      }
    }
  }
  const earliest = new Date(Math.min(to.getTime(), ...spans.map((s) => s.from.getTime())));
  const datasets = file.datasets.map((d) => d.dataset);
  const locationIds = active.map((a) => a.location.locationId);
  const { gaps, overlaps } = leaveOpenPlans(
    found,
    await openRunPlans(db, { datasets, locationIds, from: earliest, to }),
    windowHours,
  );
  const windowScope = historyWindowScope(config);
  const learned = windowAuto ? await learnedWindowHours(db, datasets, windowScope) : {};
  const locations = active.map((a) => a.location);
  const estimate = estimateGaps(
    gaps,
    { locations, windowHours, windowAuto },
    config.rateLimits,
    learned,
  );
  const names = new Map(locations.map((l) => [l.locationId, l.name]));
  for (const o of overlaps) {
    for (const note of describeOverlap(o, (id) => names.get(id) ?? `location ${id}`))
      notes.add(note);
  }
  const history = file.datasets.map((d): DatasetHistory => {
    const own = spans.filter((s) => s.dataset === d.dataset);
    const missing = gaps.filter((g) => g.dataset === d.dataset);
    return {
      dataset: d.dataset,
      from: new Date(
        Math.min(
          to.getTime(),
          ...own.map((s) => Math.max(s.from.getTime(), HISTORY_STARTS[d.dataset].getTime())),
        ),
      ),
      to,
      hours: missing.reduce((sum, g) => sum + countHours(g.from, g.to), 0),
      locations: new Set(missing.map((g) => g.locationId)).size,
    };
  });
  const runId =
    options.apply && gaps.length > 0
      ? await createRunWithGaps(db, {
          kind: 'backfill',
          priority: 0,
          windowHours,
          windowAuto,
          gaps,
          request: {
            datasets,
            from: earliest.toISOString(),
            to: to.toISOString(),
            locations: locationIds,
            windowHours: windowAuto ? 'auto' : windowHours,
            estimate,
            declared: { file: file.fileName, digest: file.digest },
          },
        })
      : undefined;
  return {
    fileName: file.fileName,
    digest: file.digest,
    add: changes.add,
    retire: changes.retire,
    restore: changes.restore,
    unchanged: changes.keep.length,
    history,
    estimate,
    notes: [...notes],
    runId,
    owed: overlaps
      .map((o) => ({ runId: o.runId, status: o.status }))
      .sort((a, b) => a.runId - b.runId),
    geocodeCalls: resolved.geocodeCalls,
    warnings: resolved.warnings,
  };
}

/** The locations of one dataset planned from one `since`: groups with it as their own, or not. */
interface SubPlan {
  readonly ids: number[];
  /** Groups whose own `since` (`datasets.X.groups`) this is. */
  readonly groups: Set<string>;
  /** Whether locations planned from the dataset's own `since` are in it too. */
  others: boolean;
}

/**
 * How the notes name a sub-plan when a dataset has several: `group alps, since -1y`,
 * `other locations, since -90d`; so a note never reads as if it spoke for the whole dataset.
 */
function scopeOf(members: Omit<SubPlan, 'ids'>, since: string): string {
  const groups = [...members.groups].sort();
  const named: string[] = [];
  if (groups.length > 0)
    named.push(`${groups.length > 1 ? 'groups' : 'group'} ${groups.join(', ')}`);
  if (members.others) named.push('other locations');
  return `${named.join(' and ')}, since ${since}`;
}
