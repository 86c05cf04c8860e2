import pg from 'pg';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyExport } from '../../src/export/verify-export.js';
import { ExportSchedule } from '../../src/sync/export-schedule.js';
import { captureLogger } from '../harness/capture-logger.js';
import { pollUntil } from '../harness/poll-until.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { landTwoMonthsOfWeather } from './berlin-weather.js';

const wh = useTestWarehouse();
const tmp = useTempDir('envdata-export-schedule-');

beforeAll(() => landTwoMonthsOfWeather(wh));

/** Reads the captured lines until one has `msg`; returns it parsed. */
function lineWith(lines: readonly string[], msg: string): Promise<Record<string, unknown>> {
  return pollUntil<Record<string, unknown>, number>(
    async () => {
      const line = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === msg);
      return line ? { done: line } : { last: lines.length };
    },
    { describe: (n) => `no line "${msg}" among ${n} line(s) logged` },
  );
}

describe('ENVDATA_EXPORT_CRON (the scheduler’s export)', () => {
  it('exports at a firing; a firing while another export runs logs that and writes nothing', async () => {
    const dir = tmp.path('scheduled');
    // Another export holds the lock (as a second scheduler's would): the firings skip.
    const other = new pg.Client({ connectionString: wh.env.databaseUrl });
    await other.connect();
    await other.query(`select pg_advisory_lock(hashtext('envdata export parquet'))`);
    const { logger, lines } = captureLogger();
    // Every second (cron-parser's six fields): the configured pattern fires at most hourly.
    const schedule = new ExportSchedule({
      cron: '* * * * * *',
      dir,
      databaseUrl: wh.env.databaseUrl,
      logger,
    });
    schedule.start();
    try {
      expect(await lineWith(lines, 'Parquet export scheduled (UTC)')).toMatchObject({
        cron: '* * * * * *',
        dir,
      });
      await lineWith(lines, 'Parquet export skipped: another is running');
      const runs = async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from envdata.export_run`.execute(
            wh.app.db,
          )
        ).rows[0]!.n;
      expect(await runs()).toBe(0);

      await other.query(`select pg_advisory_unlock(hashtext('envdata export parquet'))`);
      const finished = await lineWith(lines, 'Parquet export finished');
      expect(finished).toMatchObject({ dir, partitions: 3, rows: 49 });
      expect(await runs()).toBeGreaterThan(0);
    } finally {
      await schedule.close();
      await other.end();
    }
    // No firing failed (pino's `error` is 50).
    expect(lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50)).toEqual([]);
    expect(await verifyExport({ databaseUrl: wh.env.databaseUrl, dir })).toMatchObject({
      difference: null,
      partitions: 3,
    });
  });
});
