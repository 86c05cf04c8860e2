import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { COVERAGE_STATES, coverageGrid } from '../../src/console/coverage-grid.js';
import { freshnessBoard } from '../../src/console/freshness-board.js';
import { cancelRun } from '../../src/ledger/cancel-run.js';
import { collectStatusReport } from '../../src/status/collect-status-report.js';
import { planRunChunks } from '../harness/plan-run-chunks.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const H = 3_600_000;
const DAY = 24 * H;
const MAX_LAG_HOURS = 36;
/** The start of the current hour: the view reads the database's clock, status the process's. */
const NOW_HOUR = new Date(Math.floor(Date.now() / H) * H);
const ago = (hours: number) => new Date(NOW_HOUR.getTime() - hours * H);

interface FreshnessRow {
  dataset: string;
  complete_through: Date | null;
  locations: number;
  lag_hours: number | null;
  worst_location: string | null;
  hole_from: Date | null;
  hole_to: Date | null;
  clear_with: string | null;
  history_complete_through: Date | null;
  history_hole_location: string | null;
  history_hole_from: Date | null;
  history_hole_to: Date | null;
  history_clear_with: string | null;
  /** The start of the database's current hour, read with the row (an hour may turn meanwhile). */
  now_hour: Date;
}

/** `analytics.dataset_freshness`'s weather row. */
async function weatherRow(): Promise<FreshnessRow> {
  const { rows } = await sql<FreshnessRow>`
    select *, date_trunc('hour', now()) as now_hour
    from analytics.dataset_freshness where dataset = 'weather'`.execute(wh.app.db);
  return rows[0]!;
}

/** `--from`/`--to` as backfill takes them. */
function hourOption(hour: Date): string {
  const iso = hour.toISOString();
  return iso.slice(11, 13) === '00'
    ? iso.slice(0, 10)
    : `"${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00"`;
}

let runId: number;

describe('one definition of fresh after a cancelled backfill (issue 38)', () => {
  beforeAll(async () => {
    const vienna = (
      await wh.addLocation({ name: 'Vienna', lat: 48.2082, lng: 16.3738, countryCode: 'AT' })
    ).locationId;
    const lyon = (
      await wh.addLocation({ name: 'Lyon', lat: 45.764, lng: 4.8357, countryCode: 'FR' })
    ).locationId;
    // Vienna: a backfill of 30 days, whose first day landed before it was cancelled; then the
    // syncs landed the last 10 days but 2 hours. Lyon: all 40 days but the last 3 hours.
    ({ runId } = await planRunChunks(wh.app.db, {
      dataset: 'weather',
      locationId: vienna,
      from: ago(40 * 24),
      to: ago(10 * 24),
      windowHours: 24,
    }));
    await wh.landWeather(vienna, { from: ago(40 * 24), to: ago(39 * 24) });
    await wh.landWeather(vienna, { from: ago(10 * 24), to: ago(2) });
    await wh.landWeather(lyon, { from: ago(40 * 24), to: ago(3) });
  });

  it('names the run that is still fetching a hole', async () => {
    const row = await weatherRow();
    expect(row.history_hole_location).toBe('Vienna');
    expect(row.history_clear_with).toBe(
      `nothing to run: run ${runId} is fetching these hours (envdata status ${runId})`,
    );
  });

  it('status, the console and analytics.dataset_freshness tell the same lag; the hole is named with its command', async () => {
    expect(await cancelRun(wh.app.db, runId)).toBeDefined();

    const status = await collectStatusReport(wh.app, {
      recentRuns: 5,
      maxLagHours: MAX_LAG_HOURS,
    });
    const board = await freshnessBoard(wh.app.db, MAX_LAG_HOURS);
    const row = await weatherRow();

    const statusWeather = status.freshness.filter((f) => f.dataset === 'weather');
    const boardWeather = board.rows.filter((f) => f.dataset === 'weather');
    // None is stale anywhere: the cancelled backfill's hole is in the past.
    expect(statusWeather.filter((f) => f.stale)).toEqual([]);
    expect(boardWeather.filter((f) => f.stale)).toEqual([]);
    expect(row.lag_hours).not.toBeNull();
    expect(row.lag_hours!).toBeLessThanOrEqual(MAX_LAG_HOURS);

    // The same least fresh location, hour and lag.
    const worst = (rows: typeof statusWeather) =>
      [...rows].sort((a, b) => b.lagHours! - a.lagHours!)[0]!;
    for (const surface of [worst(statusWeather), worst(boardWeather)]) {
      expect(surface.name).toBe(row.worst_location);
      expect(surface.lastHour).toEqual(row.complete_through);
      expect(Math.abs(surface.lagHours! - row.lag_hours!)).toBeLessThan(0.1);
    }
    expect(row).toMatchObject({
      complete_through: ago(4),
      locations: 2,
      worst_location: 'Lyon',
      hole_from: ago(3),
      clear_with: 'envdata sync --now --wait',
    });
    expect(row.hole_to).toEqual(row.now_hour);

    // Pollen never landed: stale on every surface, no lag to tell, the first by name named.
    const { rows: pollen } = await sql<FreshnessRow>`
      select *, date_trunc('hour', now()) as now_hour
      from analytics.dataset_freshness where dataset = 'pollen'`.execute(wh.app.db);
    expect(status.freshness.filter((f) => f.dataset === 'pollen' && !f.stale)).toEqual([]);
    expect(pollen[0]).toMatchObject({
      complete_through: null,
      lag_hours: null,
      worst_location: 'Lyon',
      hole_from: null,
      clear_with: 'envdata sync --now --wait',
    });
    expect(pollen[0]!.hole_to).toEqual(pollen[0]!.now_hour);

    // The hole in the history, apart: which location, which hours, what to run.
    expect(row).toMatchObject({
      history_complete_through: new Date(ago(39 * 24).getTime() - H),
      history_hole_location: 'Vienna',
      history_hole_from: ago(39 * 24),
      history_hole_to: ago(10 * 24),
      history_clear_with: `envdata backfill --dataset weather --location Vienna --from ${hourOption(
        ago(39 * 24),
      )} --to ${hourOption(ago(10 * 24))}`,
    });
  });

  it('dbt reads the same hour: its loaded_at_query is complete_through', async () => {
    const { rows } = await sql<{ complete_through: Date | null }>`
      select complete_through from analytics.dataset_freshness where dataset = 'weather'`.execute(
      wh.app.db,
    );
    expect(rows[0]!.complete_through).toEqual(ago(4));
    expect(NOW_HOUR.getTime() - rows[0]!.complete_through!.getTime()).toBeLessThan(DAY);
  });

  it('the console draws the hours the cancelled run did not fetch as such, not as "not planned"', async () => {
    const grid = await coverageGrid(wh.app.db, {
      dataset: 'weather',
      bucket: 'month',
      page: 1,
      pageSize: 10,
    });
    const dropped = { from: ago(39 * 24).getTime(), to: ago(10 * 24).getTime() };
    const cells = (name: string) => grid.rows.find((r) => r.name === name)!.cells;
    const months = grid.buckets.map((b, i) => ({
      from: Date.parse(b),
      to: i + 1 < grid.buckets.length ? Date.parse(grid.buckets[i + 1]!) : Infinity,
    }));
    const expected = months
      .map((m) => (m.from < dropped.to && m.to > dropped.from ? 'x' : '?'))
      .join('');
    expect([...cells('Vienna')].map((c, i) => (expected[i] === 'x' ? c : '?')).join('')).toBe(
      expected,
    );
    expect(cells('Vienna')).toContain('x');
    expect(cells('Lyon')).not.toContain('x');
    expect(COVERAGE_STATES.x).toBe('not fetched (a cancelled run)');
  });
});
