import { sql } from 'kysely';
import type { App } from '../app.js';
import { DATASETS, type Dataset } from '../types.js';
import { insertLocation, toLocation } from '../locations/insert-location.js';
import { locationNameKey } from '../locations/location-name-key.js';
import type { Location } from '../locations/location.js';
import type { RunProgress } from '../ledger/run-progress.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';
import { startBackfill } from '../runs/start-backfill.js';
import { IngestWorker } from '../worker/ingest-worker.js';
import { describePrepareOutcome } from '../warehouse/describe-prepare-outcome.js';
import { prepareWarehouse } from '../warehouse/prepare-warehouse.js';

/** Locations in four pollen regions of the interface's region table. */
export const DEMO_LOCATIONS = [
  { name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' },
  { name: 'Chicago', lat: 41.8781, lng: -87.6298, countryCode: 'US' },
  { name: 'Brisbane', lat: -27.4698, lng: 153.0251, countryCode: 'AU' },
  { name: 'Melbourne', lat: -37.8136, lng: 144.9631, countryCode: 'AU' },
] as const;

export interface DemoOptions {
  /** Days of history to backfill per dataset, up to the last complete hour. */
  readonly days: Readonly<Record<Dataset, number>>;
  readonly print: (line: string) => void;
  /** Follows a run until it is finished (a progress bar, log lines, or just waiting). */
  readonly watch: (runId: number) => Promise<RunProgress>;
}

export interface DemoOutcome {
  readonly runId: number;
  readonly chunks: number;
  readonly failed: number;
  readonly rows: number;
}

/**
 * The demo: migrate, register locations in four pollen regions, backfill months of pollen and
 * years of weather through the real engine (ledger, queue, worker, landing), and show what a BI
 * tool would query. `app.config.service` must point at a service (the simulator).
 */
export async function runDemo(app: App, options: DemoOptions): Promise<DemoOutcome> {
  const { print } = options;
  const prepared = await prepareWarehouse(app);
  print(describePrepareOutcome(prepared));

  const locations: Location[] = [];
  for (const spec of DEMO_LOCATIONS) {
    const existing = await app.db
      .selectFrom('location')
      .selectAll()
      .where('name_key', '=', locationNameKey(spec.name))
      .executeTakeFirst();
    locations.push(
      existing
        ? toLocation(existing)
        : await insertLocation(app.db, { ...spec, registeredBy: 'coordinates' }),
    );
  }
  print(
    `locations: ${locations.map((l) => `${l.name} (${l.pollenRegion}, ${l.timezone})`).join(', ')}`,
  );

  const end = lastCompleteHourEnd();
  let last: RunProgress | undefined;
  let failed = 0;
  let rows = 0;
  let chunks = 0;
  // One backfill per dataset, as an operator would type them, through the real engine:
  // ledger, bounded queue, worker under the shared limit, idempotent landing.
  const worker = IngestWorker.start(app, { concurrency: app.config.worker.concurrency });
  try {
    for (const dataset of DATASETS) {
      const days = options.days[dataset];
      const start = await startBackfill(app, {
        datasets: [dataset],
        locations,
        from: new Date(end.getTime() - days * 86_400_000),
        to: end,
        windowHours: app.config.ingest.historyWindowHours,
      });
      if (start.runId === undefined) {
        print(`backfill ${dataset}, last ${days} days: nothing to do — the ledger holds all of it`);
        continue;
      }
      print(
        `backfill ${dataset}, last ${days} days: run ${start.runId}, ${start.estimate.chunks} chunk(s) to fetch ` +
          `(the ledger holds the rest)`,
      );
      last = await options.watch(start.runId);
      failed += last.failed;
      rows += last.rows;
      chunks += last.total;
      print(
        `  ${last.status}: ${last.done}/${last.total} chunks, ${last.rows} rows, ${last.calls} calls`,
      );
    }
  } finally {
    await worker.close();
  }
  const sample = await sql<{
    location_name: string;
    local_date: string;
    t_min: number;
    t_max: number;
    tree_risk: string | null;
  }>`
    select distinct on (w.location_name) w.location_name,
      to_char(w.local_date, 'YYYY-MM-DD') as local_date,
      round(w.temperature_c_min::numeric, 1)::float8 as t_min,
      round(w.temperature_c_max::numeric, 1)::float8 as t_max,
      p.max_risk_level as tree_risk
    from analytics.weather_daily w
    left join analytics.pollen_daily p
      on p.location_id = w.location_id and p.local_date = w.local_date and p.pollen_type = 'tree'
    where w.hours >= 23 and w.location_id = any(${locations.map((l) => l.locationId)}::int[])
    order by w.location_name, w.local_date desc`.execute(app.db);
  print('');
  print('last complete local day per location (analytics.weather_daily ⨝ analytics.pollen_daily):');
  print('location     day         temp min  temp max  tree pollen risk');
  for (const r of sample.rows) {
    print(
      `${r.location_name.padEnd(12)} ${r.local_date}  ${String(r.t_min).padStart(8)}  ${String(r.t_max).padStart(8)}  ${r.tree_risk ?? '—'}`,
    );
  }
  return { runId: last?.runId ?? 0, chunks, failed, rows };
}
