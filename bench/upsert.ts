/**
 * `npm run bench:upsert`: lands a year of hourly weather and pollen for many locations through
 * the real write path into a throwaway Postgres database, and prints rows/s next to this
 * machine's ceilings measured in the same run (`lib/ceiling.ts`: the landed rows written again
 * into tables identical to the fact tables by a server-side `INSERT … SELECT` and by a binary
 * `COPY … FROM STDIN`).
 *
 * The run is planned as `envdata backfill` plans it (`planRun`, then `materializeChunks` as the
 * feeder does), every 48 h chunk's body is the simulator's own answer (its generators and
 * renderers, no HTTP), parsed by the service client's parser, and batches of chunks go to
 * `FactWriter.land` as workers hand them over; then every batch is landed again, identical, and
 * then twice more with 1 % and 10 % of the rows changed (`VALUE_CHANGES`): the cost of keeping
 * revisions (issue 40), each phase's revisions counted against the rows it changed, and the
 * bytes per revision row and per answer.
 *
 * Targets: weather fresh at ≥ 75 % of its INSERT … SELECT ceiling, all rows at ≥ 60 %;
 * re-landing identical rows ≥ 2× faster than fresh; memory flat as the batch count grows
 * (peaks printed at 25/50/75/100 % of the batches, judged on the live heap they leave behind).
 * A measurement, not a test: it exits 0 whether the targets are met or not, and prints misses
 * loudly.
 *
 * @example npm run bench:upsert -- --locations 20 --days 365 --batch 32
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import type { App } from '../src/app.js';
import { createDatabase } from '../src/warehouse/create-database.js';
import type { Database } from '../src/warehouse/schema.js';
import { refreshDailyRollups } from '../src/warehouse/refresh-daily-rollups.js';
import {
  benchOptions,
  checkpoint,
  DEFAULT_SERVER_URL,
  runInBenchDatabase,
} from './lib/bench-database.js';
import { addBenchLocations } from './lib/bench-locations.js';
import {
  createCeilingTables,
  dropCeilingTables,
  measureCeilings,
  type Ceilings,
} from './lib/ceiling.js';
import { CHUNK_HOURS, LandingRun, planBackfill } from './lib/landing-run.js';
import { fullGc, sampleMemory } from './lib/memory.js';
import { compareTechniques } from './lib/technique-runs.js';
import { parseOff, TECHNIQUES, type Techniques } from './lib/techniques.js';
import { printUpsertReport, type UpsertReport } from './lib/upsert-report.js';
import { wholeNumberFlag } from './lib/bench-flags.js';
import { VALUE_CHANGES } from './lib/changed-values.js';
import { countRevisions } from './lib/revision-counts.js';
import { FACT_SIZE_TABLES, REVISION_SIZE_TABLES, type RelandPhase } from './lib/revision-report.js';
import { measureTableSizes } from './lib/warehouse-sizes.js';

const DAY_MS = 86_400_000;

/** The triggers that mark partitions for the Parquet export (migration 0056), by table. */
const EXPORT_MARK_TRIGGERS: Record<string, readonly string[]> = {
  weather_hourly: ['update', 'delete'],
  pollen_hourly: ['update', 'delete'],
  pollen_species_hourly: ['update', 'delete'],
  weather_daily_rollup: ['insert', 'update', 'delete'],
  pollen_daily_rollup: ['insert', 'update', 'delete'],
};

function readOptions(): UpsertReport['options'] & {
  readonly keep: boolean;
  readonly techniques: Techniques;
  readonly compare: boolean;
  readonly repeat: number;
  readonly exportMarks: boolean;
} {
  const { values } = parseArgs({
    options: {
      locations: { type: 'string', default: '20' },
      days: { type: 'string', default: '365' },
      batch: { type: 'string', default: '32' },
      from: { type: 'string', default: '2023-01-01' },
      'no-archive': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      off: { type: 'string', default: '' },
      techniques: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '3' },
      'no-export-marks': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`usage: npm run bench:upsert -- [options]
  --locations N   locations to register (default 20)
  --days N        days of hourly history per location and dataset (default 365)
  --batch N       48 h chunks per FactWriter.land() call (default 32)
  --from DATE     first UTC day of the history (default 2023-01-01)
  --no-archive    do not archive raw payloads (ENVDATA_ARCHIVE_RAW=false; default archives)
  --no-export-marks  no change marks for the export (the writer's and migration 0056's triggers), to
                  measure what they cost a landing against a run with them
  --keep          keep the database afterwards and print its URL (to try queries on it)
  --off LIST      switch techniques off, comma-separated: ${Object.keys(TECHNIQUES).join(', ')}
  --techniques    instead: land weather with every technique on and with each off in turn,
                  --repeat times (default 3) in alternating order, and print what each earns
Server: BENCH_DATABASE_URL (a superuser URL), default ${DEFAULT_SERVER_URL}`);
    process.exit(0);
  }
  const from = new Date(`${values.from}T00:00:00Z`);
  if (Number.isNaN(from.getTime())) throw new Error(`--from must be a date such as 2023-01-01`);
  return {
    locations: wholeNumberFlag('locations', values.locations, 500),
    days: wholeNumberFlag('days', values.days, 3_660),
    batch: wholeNumberFlag('batch', values.batch, 1_000),
    archiveRaw: !values['no-archive'],
    keep: values.keep,
    from,
    techniques: parseOff(values.off),
    compare: values.techniques,
    repeat: wholeNumberFlag('repeat', values.repeat, 20),
    exportMarks: !values['no-export-marks'],
  };
}

/** A pool of its own when `--off` names a technique of the connection (prepare). */
function offDatabase(app: App, url: string, techniques: Techniques): Kysely<Database> | undefined {
  if (techniques.prepare) return undefined;
  return createDatabase({
    url,
    poolMax: 10,
    logger: app.logger,
    preparedStatements: techniques.prepare,
  });
}

async function main(): Promise<void> {
  const options = benchOptions('bench:upsert', readOptions);
  if (!options) return;
  // The bench is an entry point: the one place here that reads the environment.
  const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  await runInBenchDatabase(server, options.keep, async ({ bench, app, stopIfInterrupted }) => {
    const db = app.db;
    if (!options.exportMarks) {
      console.log(
        "export marks off: the writer's marks and the triggers of migration 0056 are disabled",
      );
      for (const [table, events] of Object.entries(EXPORT_MARK_TRIGGERS)) {
        for (const event of events) {
          await sql
            .raw(`alter table envdata.${table} disable trigger export_mark_${event}`)
            .execute(db);
        }
      }
    }
    const locations = await addBenchLocations(db, options.locations);
    if (options.compare) {
      console.log('landing weather with each technique switched off in turn');
      await compareTechniques(
        app,
        bench.url,
        { ...options, locations, beforeYear: options.from.getUTCFullYear() },
        stopIfInterrupted,
      );
      return;
    }
    const to = new Date(options.from.getTime() + options.days * DAY_MS);
    const runId = await planBackfill(db, {
      locations,
      from: options.from,
      to,
      datasets: ['weather', 'pollen'],
    });
    console.log(
      `registered ${locations.length} locations, planned ${CHUNK_HOURS} h chunks up to ${to.toISOString()}`,
    );
    const offDb = offDatabase(app, bench.url, options.techniques);
    const run = new LandingRun(offDb ?? db, runId, locations, options);

    console.log('landing fresh rows');
    fullGc();
    const memoryBefore = sampleMemory();
    await checkpoint(db);
    const fresh = await run.landAll(stopIfInterrupted);
    console.log('re-landing the identical batches');
    let revisions = await countRevisions(db);
    await checkpoint(db);
    const reland = await run.landAll(stopIfInterrupted);
    const phases: RelandPhase[] = [];
    const relanded = async (label: string, totals: RelandPhase['totals']) => {
      const after = await countRevisions(db);
      phases.push({ label, totals, revisionsBefore: revisions, revisionsAfter: after });
      revisions = after;
    };
    await relanded('0 %', reland);
    const factSizes = await measureTableSizes(db, FACT_SIZE_TABLES);
    for (const change of VALUE_CHANGES) {
      console.log(`re-landing the batches with ${change.label} of the rows changed`);
      await checkpoint(db);
      await relanded(change.label, await run.landAll(stopIfInterrupted, change));
    }
    const revisionSizes = await measureTableSizes(db, REVISION_SIZE_TABLES);
    fullGc();
    const liveHeapAfter = process.memoryUsage().heapUsed;
    await offDb?.destroy();

    stopIfInterrupted();
    console.log('measuring the ceilings (the landed rows written again), first run');
    await createCeilingTables(db, options.from, to);
    const ceilingRuns: Ceilings[] = [await measureCeilings(db, bench.url)];

    stopIfInterrupted();
    console.log('refreshing daily rollups');
    const t0 = performance.now();
    const rollupRows = await refreshDailyRollups(db);
    const rollup = { rows: rollupRows, seconds: (performance.now() - t0) / 1_000 };

    stopIfInterrupted();
    console.log('measuring the ceilings, second run');
    ceilingRuns.push(await measureCeilings(db, bench.url));
    await dropCeilingTables(db);
    const { rows: size } = await sql<{
      bytes: number;
    }>`select pg_database_size(current_database())::float8 as bytes`.execute(db);

    printUpsertReport({
      options,
      fresh,
      reland,
      ceilingRuns,
      memory: run.memory,
      memoryBefore,
      liveHeapAfter,
      rollup,
      databaseBytes: size[0]?.bytes ?? 0,
      revisions: { phases, sizes: [...factSizes, ...revisionSizes] },
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
