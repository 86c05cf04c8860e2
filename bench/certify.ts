/**
 * `npm run bench:certify`: a certificate of one location-year of weather (8,760 rows) verified
 * against the warehouse, timed beside a plain `select` of the same rows.
 *
 * In a throwaway database on BENCH_DATABASE_URL (default the local server): migrates, registers
 * one location, fills a year of hourly weather server-side (`generate_series`, every column set,
 * float4 values with fractions), certifies it once with a new Ed25519 key, then times, over
 * several runs, (a) `select * from envdata.weather_hourly` of that location-year read to the
 * client and (b) `envdata verify`'s work: the signature, the canonical rows read in one snapshot
 * and digested, compared with the subject. Prints the medians and the ratio. Target (issue 40):
 * verify under 5 s. A measurement: it exits 0 either way and prints a miss loudly.
 *
 * @example npm run bench:certify
 * @example npm run bench:certify -- --runs 9 --keep
 */
import { createPublicKey, createPrivateKey } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { certifyRange } from '../src/certify/certify-range.js';
import { generateCertifyKeys } from '../src/certify/certify-keys.js';
import { compareWarehouse } from '../src/certify/compare-warehouse.js';
import { openCertificate } from '../src/certify/open-certificate.js';
import { DEFAULT_SERVER_URL, runInBenchDatabase } from './lib/bench-database.js';

const TARGET_MS = 5_000;
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, keep: { type: 'boolean', default: false } },
});
const runs = Math.max(1, Number(values.runs));
const from = new Date('2023-01-01T00:00:00Z');
const to = new Date('2024-01-01T00:00:00Z');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await runInBenchDatabase(
  process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL,
  values.keep ?? false,
  async ({ app }) => {
    const db = app.db;
    const { rows: made } = await sql<{ location_id: number }>`
      insert into envdata.location (name, name_key, lat, lng, country_code, timezone, pollen_region, registered_by)
      values ('Bench', 'bench', 52.52, 13.405, 'DE', 'Europe/Berlin', 'europe', 'coordinates')
      returning location_id`.execute(db);
    const locationId = made[0]!.location_id;
    await sql`
      insert into envdata.weather_hourly (location_id, observed_at, temperature_c,
        apparent_temperature_c, dew_point_c, humidity_fraction, pressure_hpa, wind_speed_ms,
        wind_gust_ms, wind_bearing_deg, cloud_cover_fraction, visibility_km, uv_index, ozone_du,
        precip_intensity_mm_h, precip_probability_fraction, precip_type, summary, icon_raw)
      select ${locationId}, t, 10 + 8 * sin(i / 24.0), 9 + 8 * sin(i / 24.0), 3.3 + cos(i / 7.0),
        0.5 + 0.4 * sin(i / 11.0), 1013.25 + sin(i / 50.0), 3.7 + sin(i / 5.0), 6.1 + sin(i / 5.0),
        (i * 7.3) % 360, 0.5 + 0.5 * sin(i / 13.0), 10.2, greatest(0, 5 * sin(i / 24.0)), 301.7,
        0.1 * (i % 3), 0.33, 'rain', 'Light rain', 'rain'
      from generate_series(${from}::timestamptz, ${to}::timestamptz - interval '1 hour',
        interval '1 hour') with ordinality as g(t, i)`.execute(db);
    const keys = generateCertifyKeys();
    const started = performance.now();
    const certificate = await certifyRange(db, {
      dataset: 'weather',
      location: {
        locationId,
        name: 'Bench',
        lat: 52.52,
        lng: 13.405,
        countryCode: 'DE',
        timezone: 'Europe/Berlin',
        pollenRegion: 'europe',
        place: null,
        registeredBy: 'coordinates',
        ingestByPlace: false,
        retiredAt: null,
      },
      from,
      to,
      privateKey: createPrivateKey(keys.privatePem),
      envdataVersion: 'bench',
      sourceHost: 'bench.invalid',
    });
    const certifyMs = performance.now() - started;
    const text = JSON.stringify(certificate.envelope);
    const publicKey = createPublicKey(keys.publicPem);
    const selects: number[] = [];
    const verifies: number[] = [];
    for (let run = 0; run < runs; run++) {
      let t = performance.now();
      const { rows } = await sql`
        select * from envdata.weather_hourly
        where location_id = ${locationId} and observed_at >= ${from} and observed_at < ${to}
        order by observed_at`.execute(db);
      selects.push(performance.now() - t);
      if (rows.length !== 8760) throw new Error(`expected 8760 rows, read ${rows.length}`);
      t = performance.now();
      const statement = openCertificate(text, publicKey);
      const comparison = await compareWarehouse(db, statement);
      verifies.push(performance.now() - t);
      if (!comparison.same) throw new Error('the untouched year did not verify');
    }
    const [s, v] = [median(selects), median(verifies)];
    console.log(`\none location-year of weather: ${certificate.statement.predicate.rowCount} rows`);
    console.log(
      `certificate: ${(text.length / 1024).toFixed(0)} KB, certified in ${certifyMs.toFixed(0)} ms`,
    );
    console.log(`plain select of the rows    median ${s.toFixed(0)} ms over ${runs} run(s)`);
    console.log(
      `verify against the warehouse median ${v.toFixed(0)} ms (${(v / s).toFixed(1)}× the select)`,
    );
    console.log(
      v < TARGET_MS
        ? `target met: verify under ${TARGET_MS / 1000} s`
        : `*** MISSED: verify took ${v.toFixed(0)} ms, target under ${TARGET_MS} ms ***`,
    );
  },
);
