/**
 * `npm run bench:plan`: how long `envdata plan` takes on a large declared file (issue 28).
 *
 * In a throwaway database on BENCH_DATABASE_URL: migrates, registers N points (a grid over
 * Europe), and marks half of 30 years of both datasets as landed for each, every other year (a
 * fragmented coverage: 15 ranges per location and dataset, the hard case for the gap query).
 * Then writes an `envdata.yaml` declaring the same points and `since` 30 years back, and times
 * `envdata plan -f FILE` in this process (the command as `bin/envdata.js` runs it, without the
 * process start: `npm run bench:cli` measures that), once to warm up, then `--runs` times.
 *
 * Target (issue 28): under 2 s for 1,000 locations × 2 datasets × 30 years half covered, judged
 * on the median. A measurement, not a test: it exits 0 whether the target is met or not.
 *
 * @example npm run bench:plan
 * @example npm run bench:plan -- --locations 100 --runs 3
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { runCli } from '../src/cli/run-cli.js';
import { insertLocations } from '../src/locations/insert-location.js';
import { benchOptions, DEFAULT_SERVER_URL, runInBenchDatabase } from './lib/bench-database.js';

const YEARS = 30;
const TARGET_MS = 2_000;

function readOptions(): { locations: number; runs: number; keep: boolean } {
  const { values } = parseArgs({
    options: {
      locations: { type: 'string', default: '1000' },
      runs: { type: 'string', default: '5' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const whole = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number ≥ 1`);
    return n;
  };
  return {
    locations: whole('locations', values.locations),
    runs: whole('runs', values.runs),
    keep: values.keep,
  };
}

const options = benchOptions('bench:plan', readOptions);
if (options !== undefined) {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  await runInBenchDatabase(serverUrl, options.keep, async ({ bench, app, stopIfInterrupted }) => {
    const points = Array.from({ length: options.locations }, (_, i) => ({
      name: `Site ${i + 1}`,
      lat: 40 + Math.floor(i / 50) * 0.25,
      lng: -5 + (i % 50) * 0.5,
    }));
    console.log(`registering ${points.length} locations, half of ${YEARS} years landed`);
    await insertLocations(
      app.db,
      points.map((p) => ({ ...p, countryCode: null, registeredBy: 'coordinates' as const })),
    );
    const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const startYear = end.getUTCFullYear() - YEARS;
    await sql`
      insert into envdata.coverage (location_id, dataset, landed)
      select l.location_id, d, range_agg(tstzrange(make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'),
                                                   make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC')))
      from envdata.location l
      cross join unnest(enum_range(null::envdata.dataset)) d
      cross join generate_series(${startYear}::int, ${startYear + YEARS - 1}::int, 2) y
      group by l.location_id, d`.execute(app.db);
    await sql`analyze`.execute(app.db);
    stopIfInterrupted();

    const dir = await mkdtemp(path.join(tmpdir(), 'envdata-bench-plan-'));
    try {
      const file = path.join(dir, 'envdata.yaml');
      const since = `${startYear}-01-01`;
      await writeFile(
        file,
        [
          'version: 1',
          'locations:',
          ...points.map((p) => `  - { name: ${p.name}, lat: ${p.lat}, lng: ${p.lng} }`),
          'datasets:',
          `  pollen: { since: ${since} }`,
          `  weather: { since: ${since} }`,
          '',
        ].join('\n'),
      );
      const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
      let output = '';
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          output += chunk.toString('utf8');
          callback();
        },
      });
      const env = { DATABASE_URL: bench.url, LOG_LEVEL: 'warn', PATH: process.env.PATH ?? '' };
      const plan = async () => {
        output = '';
        const started = performance.now();
        const code = await runCli(['plan', '-f', file], { env, stdout, stderr: sink });
        if (code !== 0) throw new Error(`envdata plan exited ${code}`);
        return performance.now() - started;
      };
      await plan();
      const times: number[] = [];
      for (let i = 0; i < options.runs; i += 1) {
        stopIfInterrupted();
        times.push(await plan());
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      console.log(`\n${output.split('\n').slice(0, 4).join('\n')}`);
      console.log(
        `\nenvdata plan, ${points.length} locations × 2 datasets × ${YEARS} years half covered: ` +
          `median ${Math.round(median)} ms (min ${Math.round(times[0]!)}, max ${Math.round(times.at(-1)!)}, ${times.length} runs)`,
      );
      console.log(
        median < TARGET_MS
          ? `target met: under ${TARGET_MS} ms`
          : `TARGET MISSED: ${Math.round(median)} ms ≥ ${TARGET_MS} ms`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
