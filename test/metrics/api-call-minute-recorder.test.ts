import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ApiCallMinuteRecorder } from '../../src/metrics/api-call-minute-recorder.js';
import { captureLogger } from '../harness/capture-logger.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

async function minutes() {
  const { rows } = await sql<{
    minute: Date;
    endpoint: string;
    calls: number;
    throttled: number;
    failed: number;
  }>`select minute, endpoint, calls, throttled, failed from envdata.api_call_minute
     order by minute, endpoint`.execute(wh.app.db);
  return rows.map((r) => ({ ...r, minute: r.minute.toISOString() }));
}

describe('the per-minute call counts of a worker', () => {
  it('adds calls, 429s and other failures per minute and endpoint, summed over flushes', async () => {
    let now = T0 + 5_000;
    const recorder = new ApiCallMinuteRecorder({
      db: wh.app.db,
      logger: captureLogger().logger,
      now: () => now,
    });
    for (const status of ['200', '200', '429', '500', 'error', '206']) {
      recorder.serviceCall('pollen_history', status);
    }
    recorder.serviceCall('weather_history', '200');
    await recorder.flush();
    now = T0 + 61_000;
    recorder.serviceCall('pollen_history', '429');
    await recorder.flush();
    // A second process adds to the same minute.
    const other = new ApiCallMinuteRecorder({
      db: wh.app.db,
      logger: captureLogger().logger,
      now: () => now,
    });
    other.serviceCall('pollen_history', '200');
    await other.flush();
    await recorder.flush(); // nothing new: nothing written twice

    expect(await minutes()).toEqual([
      {
        minute: '2026-11-23T12:00:00.000Z',
        endpoint: 'pollen_history',
        calls: 6,
        throttled: 1,
        failed: 2,
      },
      {
        minute: '2026-11-23T12:00:00.000Z',
        endpoint: 'weather_history',
        calls: 1,
        throttled: 0,
        failed: 0,
      },
      {
        minute: '2026-11-23T12:01:00.000Z',
        endpoint: 'pollen_history',
        calls: 2,
        throttled: 1,
        failed: 0,
      },
    ]);
  });

  it('keeps the counts of a failed flush for the next one, says so once, and bounds them', async () => {
    await sql`delete from envdata.api_call_minute`.execute(wh.app.db);
    const { logger, lines } = captureLogger();
    let now = T0;
    const recorder = new ApiCallMinuteRecorder({
      db: wh.app.db,
      logger,
      now: () => now,
      maxKeptCounts: 2,
    });
    // The table is gone for a while (this file's own database).
    await sql`alter table envdata.api_call_minute rename to api_call_minute_away`.execute(
      wh.app.db,
    );
    try {
      for (let minute = 0; minute < 3; minute++) {
        now = T0 + minute * 60_000;
        recorder.serviceCall('geocode', '200');
        await recorder.flush();
      }
    } finally {
      await sql`alter table envdata.api_call_minute_away rename to api_call_minute`.execute(
        wh.app.db,
      );
    }
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string }).map((l) => l.msg);
    expect(warnings.filter((m) => m.startsWith('could not add call counts'))).toHaveLength(1);
    expect(warnings.filter((m) => /oldest minutes are dropped/.test(m))).toHaveLength(1);
    await recorder.flush();
    // The two most recent minutes were kept; the oldest was dropped at the bound.
    expect((await minutes()).map((m) => [m.minute, m.calls])).toEqual([
      ['2026-11-23T12:01:00.000Z', 1],
      ['2026-11-23T12:02:00.000Z', 1],
    ]);
  });

  it('deletes minutes older than the retention when it flushes', async () => {
    const now = Date.now();
    await sql`delete from envdata.api_call_minute`.execute(wh.app.db);
    await sql`insert into envdata.api_call_minute (minute, endpoint, calls) values
      (date_trunc('minute', now() - interval '8 days'), 'geocode', 3),
      (date_trunc('minute', now() - interval '6 days'), 'geocode', 4)`.execute(wh.app.db);
    const recorder = new ApiCallMinuteRecorder({
      db: wh.app.db,
      logger: captureLogger().logger,
      now: () => now,
    });
    recorder.serviceCall('geocode', '200');
    await recorder.stop(5_000);
    const { rows } = await sql<{ calls: number }>`
      select calls from envdata.api_call_minute order by minute`.execute(wh.app.db);
    expect(rows.map((r) => r.calls)).toEqual([4, 1]);
  });
});
