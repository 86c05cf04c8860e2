import { sql } from 'kysely';
import pLimit from 'p-limit';
import type { App } from '../app.js';
import { coerceError } from '../errors/coerce-error.js';
import { fetchChunk } from '../ingest/fetch-chunk.js';
import { createRun } from '../ledger/create-run.js';
import { insertChunks } from '../ledger/insert-chunks.js';
import { insertLocation, toLocation } from '../locations/insert-location.js';
import type { Location } from '../locations/location.js';
import { findGaps } from '../planner/find-gaps.js';
import { lastCompleteHourEnd, tileWindows } from '../planner/tile-windows.js';
import { createServiceClient } from '../service/service-client.js';
import type { Dataset } from '../types.js';
import { FactWriter } from '../warehouse/fact-writer.js';
import { prepareWarehouse } from '../warehouse/prepare-warehouse.js';
import { refreshDailyRollups } from '../warehouse/refresh-daily-rollups.js';

/** Locations in four pollen regions of the interface's region table. */
export const DEMO_LOCATIONS = [
  { name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' },
  { name: 'Chicago', lat: 41.8781, lng: -87.6298, countryCode: 'US' },
  { name: 'Brisbane', lat: -27.4698, lng: 153.0251, countryCode: 'AU' },
  { name: 'Melbourne', lat: -37.8136, lng: 144.9631, countryCode: 'AU' },
] as const;

export interface DemoOptions {
  readonly pollenDays: number;
  readonly weatherDays: number;
  readonly print: (line: string) => void;
}

export interface DemoOutcome {
  readonly runId: number;
  readonly chunks: number;
  readonly failed: number;
  readonly rows: number;
}

/**
 * The demo: migrate, register a few locations, ingest recent pollen and weather history
 * through the ledger, the service client and the fact writer, refresh the rollups, and show
 * what a BI tool would query. `app.config.service` must point at a service (the simulator).
 */
export async function runDemo(app: App, options: DemoOptions): Promise<DemoOutcome> {
  const { print } = options;
  const prepared = await prepareWarehouse(app);
  print(`warehouse ready (migrations at ${prepared.latest ?? 'none'})`);

  const locations: Location[] = [];
  for (const spec of DEMO_LOCATIONS) {
    const existing = await app.db
      .selectFrom('location')
      .selectAll()
      .where(sql<string>`lower(name)`, '=', spec.name.toLowerCase())
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
  const windowHours = app.config.ingest.historyWindowHours;
  const ranges: [Dataset, number][] = [
    ['pollen', options.pollenDays],
    ['weather', options.weatherDays],
  ];
  const runId = await createRun(app.db, 'backfill', { demo: true, ...Object.fromEntries(ranges) });
  for (const [dataset, days] of ranges) {
    const gaps = await findGaps(app.db, {
      datasets: [dataset],
      locationIds: locations.map((l) => l.locationId),
      from: new Date(end.getTime() - days * 86_400_000),
      to: end,
    });
    await insertChunks(
      app.db,
      runId,
      gaps.flatMap((gap) =>
        tileWindows(gap.from, gap.to, windowHours).map((w) => ({
          dataset,
          locationId: gap.locationId,
          ...w,
        })),
      ),
    );
  }
  const todo = await app.db
    .selectFrom('chunk')
    .select(['chunk_id', 'dataset', 'location_id', 'window_from', 'window_to', 'attempts'])
    .where('run_id', '=', runId)
    .where('status', '!=', 'done')
    .execute();
  print(`run ${runId}: ${todo.length} chunk(s) to fetch (the ledger already holds the rest)`);

  const apiKey = app.config.service.apiKey;
  const client = createServiceClient({
    ...app.config.service,
    apiKey: apiKey ?? '',
    logger: app.logger,
  });
  const writer = new FactWriter(app.db, { archiveRaw: app.config.ingest.archiveRaw });
  const byId = new Map(locations.map((l) => [l.locationId, l]));
  const limit = pLimit(app.config.worker.concurrency);
  let rows = 0;
  let failed = 0;
  try {
    await Promise.all(
      todo.map((chunk) =>
        limit(async () => {
          try {
            const landing = await fetchChunk(client, {
              chunkId: chunk.chunk_id,
              dataset: chunk.dataset,
              location: byId.get(chunk.location_id)!,
              window: { from: chunk.window_from, to: chunk.window_to },
              attempts: chunk.attempts + 1,
            });
            const summary = await writer.land([landing]);
            rows += summary.results[0]?.rows ?? 0;
          } catch (thrown) {
            failed++;
            const error = coerceError(thrown);
            await app.db
              .updateTable('chunk')
              .set({
                status: 'failed',
                error_code: (error as { code?: string }).code ?? 'INTERNAL',
                error_message: error.message,
              })
              .where('chunk_id', '=', chunk.chunk_id)
              .execute();
          }
        }),
      ),
    );
  } finally {
    await client.close();
  }
  await refreshDailyRollups(app.db);
  await app.db
    .updateTable('run')
    .set({ status: failed ? 'failed' : 'done', finished_at: new Date() })
    .where('run_id', '=', runId)
    .execute();
  print(`landed ${rows} fact rows from ${todo.length - failed} chunk(s); ${failed} failed`);

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
    where w.hours >= 23
    order by w.location_name, w.local_date desc`.execute(app.db);
  print('');
  print('last complete local day per location (analytics.weather_daily ⨝ analytics.pollen_daily):');
  print('location     day         temp min  temp max  tree pollen risk');
  for (const r of sample.rows) {
    print(
      `${r.location_name.padEnd(12)} ${r.local_date}  ${String(r.t_min).padStart(8)}  ${String(r.t_max).padStart(8)}  ${r.tree_risk ?? '—'}`,
    );
  }
  return { runId, chunks: todo.length, failed, rows };
}
