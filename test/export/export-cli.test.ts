import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportJson, exportVerifyJson } from '../../src/cli/json/export-json.js';
import { statusJson } from '../../src/cli/json/status-json.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { landTwoMonthsOfWeather } from './berlin-weather.js';

const wh = useTestWarehouse();
const tmp = useTempDir('envdata-export-cli-');
const envdata = (args: readonly string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, wh.env.cliEnv(extra));

beforeAll(() => landTwoMonthsOfWeather(wh));

describe('envdata export on the command line', () => {
  it('exports, verifies and queries; --json documents follow their schemas; a difference exits 1', async () => {
    const dir = tmp.path('out');
    const lastExport = async () =>
      statusJson.parse(JSON.parse((await envdata(['status', '--json'])).stdout)).lastExport;
    expect(await lastExport()).toBeNull();
    const first = await envdata(['export', 'parquet', '--json'], { ENVDATA_EXPORT_DIR: dir });
    expect(first.code, first.stderr).toBe(0);
    const summary = exportJson.parse(JSON.parse(first.stdout));
    expect(summary.written).toEqual([
      'weather_hourly/2024-05',
      'weather_hourly/2024-06',
      'locations',
    ]);

    expect(await lastExport()).toEqual({
      target: dir,
      finishedAt: expect.any(String),
      partitionsWritten: 3,
      rowsWritten: 49,
      partitionsBehind: 0,
      oldestChangeAt: null,
    });

    const again = await envdata(['export', 'parquet', '--to', dir]);
    expect(again.stdout).toBe(`nothing changed since the last export: 3 partition(s) in ${dir}\n`);

    const ok = await envdata(['export', 'verify', '--to', dir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(
      'verified 3 partition(s), 49 rows: files, manifest and warehouse agree\n',
    );

    const query = await envdata([
      'export',
      'query',
      '--to',
      dir,
      'SELECT month, count(*) AS n FROM weather_hourly GROUP BY month ORDER BY month',
    ]);
    expect(query.stdout).toBe('month\tn\n5\t24\n6\t24\n');

    await wh.app.db
      .deleteFrom('weather_hourly')
      .where('observed_at', '=', new Date('2024-06-01T05:00:00Z'))
      .execute();
    const behind = (await lastExport())!;
    expect(behind.partitionsBehind).toBe(1);
    expect(Date.parse(behind.oldestChangeAt!)).toBeGreaterThanOrEqual(
      Date.parse(behind.finishedAt),
    );
    const differs = await envdata(['export', 'verify', '--to', dir, '--json']);
    expect(differs.code).toBe(1);
    const document = exportVerifyJson.parse(JSON.parse(differs.stdout));
    expect(document).toMatchObject({
      ok: false,
      difference: { partition: 'weather_hourly/2024-06' },
    });
    expect(document.difference!.reason).toMatch(/^the warehouse holds 23 rows/);

    const plain = await envdata(['export', 'verify', '--to', dir]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(
      /^envdata: weather_hourly\/2024-06 \(dataset=weather_hourly\/year=2024\/month=06\/part\.parquet\) differs: the warehouse holds 23 rows/,
    );
    // The delete marked the partition: the next export rewrites it alone.
    const third = exportJson.parse(
      JSON.parse((await envdata(['export', 'parquet', '--to', dir, '--json'])).stdout),
    );
    expect(third.written).toEqual(['weather_hourly/2024-06']);
    expect((await envdata(['export', 'verify', '--to', dir])).code).toBe(0);
  });

  it('digests agree with the warehouse for every kind of float: tiny, huge, zero, NaN, infinite', async () => {
    const dir = tmp.path('floats');
    const values = [
      '0.0009765625', // 2^-10: still a whole number ×2^33
      '0.0009765624',
      '1048575.9', // below 2^20
      '1048576', // 2^20: written in %.8e
      '-0',
      '1e-40', // subnormal
      '3.4028235e38',
      'NaN',
      'Infinity',
      '-Infinity',
      '-12.7',
    ];
    const berlin = (
      await wh.app.db.selectFrom('location').select('location_id').executeTakeFirstOrThrow()
    ).location_id;
    await sql`
      insert into envdata.weather_hourly (location_id, observed_at, temperature_c, dew_point_c)
      select ${berlin}, timestamptz '2023-03-01 00:00:00+00' + (i - 1) * interval '1 hour', v::real, -v::real
      from unnest(${values}::text[]) with ordinality as t(v, i)`.execute(wh.app.db);
    // Inserted by hand, not by envdata's writer: unmarked, so --full.
    const result = await envdata(['export', 'parquet', '--to', dir, '--full', '--json']);
    expect(exportJson.parse(JSON.parse(result.stdout)).written).toContain('weather_hourly/2023-03');
    const verified = await envdata(['export', 'verify', '--to', dir]);
    expect(verified.code, verified.stderr).toBe(0);
    const counted = await envdata([
      'export',
      'query',
      '--to',
      dir,
      'SELECT count(*) FILTER (WHERE isnan(temperature_c)) AS nan, count(*) FILTER (WHERE isinf(temperature_c)) AS inf FROM weather_hourly WHERE year = 2023',
    ]);
    expect(counted.stdout).toBe('nan\tinf\n1\t2\n');
  });

  it('needs a directory', async () => {
    const result = await envdata(['export', 'verify']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('required: --to DIR (or ENVDATA_EXPORT_DIR)');
  });
});
