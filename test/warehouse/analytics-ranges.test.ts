import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let saoPaulo: number;
let rome: number;

/** Lands a weather window (`wh.landWeather`), as rows or as "no data". */
const land = (locationId: number, from: string, to: string, noData = false) =>
  wh.landWeather(locationId, { from: new Date(from), to: new Date(to) }, { noData });

beforeAll(async () => {
  saoPaulo = (
    await wh.addLocation({ name: 'São Paulo', lat: -23.5505, lng: -46.6333, countryCode: 'BR' })
  ).locationId;
  rome = (await wh.addLocation({ name: 'Rome', lat: 41.9028, lng: 12.4964, countryCode: 'IT' }))
    .locationId;
  // São Paulo: every hour asked answered "Data not available!". Rome: rows, "no data", rows.
  await land(saoPaulo, '2024-06-01T00:00:00Z', '2024-06-03T00:00:00Z', true);
  await land(saoPaulo, '2024-06-03T00:00:00Z', '2024-06-05T00:00:00Z', true);
  await land(rome, '2024-06-01T00:00:00Z', '2024-06-03T00:00:00Z');
  await land(rome, '2024-06-03T00:00:00Z', '2024-06-05T00:00:00Z', true);
  await land(rome, '2024-06-05T00:00:00Z', '2024-06-07T00:00:00Z');
});

/** Every column of every analytics view that holds a range, a multirange or an instant. */
async function boundedColumns() {
  const { rows } = await sql<{ view: string; column: string; kind: 'r' | 'm' | 't' }>`
    select c.relname as view, a.attname as column,
      case when t.typtype in ('r', 'm') then t.typtype::text else 't' end as kind
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_type t on t.oid = a.atttypid
    where n.nspname = 'analytics' and c.relkind in ('v', 'm') and a.attnum > 0
      and not a.attisdropped
      and (t.typtype in ('r', 'm') or t.typname in ('timestamptz', 'timestamp', 'date'))
    order by 1, 2`.execute(wh.app.db);
  return rows;
}

describe('analytics views never hold an unbounded range', () => {
  it('no column of any row has an infinite or missing bound, with a location entirely "no data"', async () => {
    const columns = await boundedColumns();
    // The scan covers analytics.coverage's ranges (and every other view's instants).
    expect(
      columns.filter((c) => c.view === 'coverage' && c.kind === 'm').map((c) => c.column),
    ).toEqual([
      'covered_ranges',
      'gaps',
      'missing_upstream_ranges',
      'no_data_ranges',
      'not_covered_ranges',
      'quarantined_ranges',
    ]);
    const unbounded: string[] = [];
    for (const { view, column, kind } of columns) {
      const col = sql.ref(column);
      const bad =
        kind === 't'
          ? sql`not isfinite(${col})`
          : kind === 'r'
            ? sql`not isempty(${col}) and (lower_inf(${col}) or upper_inf(${col})
                or not isfinite(lower(${col})) or not isfinite(upper(${col})))`
            : sql`exists (select 1 from unnest(${col}) r where lower_inf(r) or upper_inf(r)
                or not isfinite(lower(r)) or not isfinite(upper(r)))`;
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from ${sql.table(`analytics.${view}`)}
        where coalesce(${bad}, false)`.execute(wh.app.db);
      if (rows[0]!.n > 0) unbounded.push(`${view}.${column}: ${rows[0]!.n} row(s)`);
    }
    expect(unbounded).toEqual([]);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from analytics.coverage`.execute(wh.app.db);
    expect(rows[0]!.n).toBe(2);
  });

  it('shows a location answered only "no data" as known empty, with no gaps and its no-data hours', async () => {
    const { rows } = await sql<{
      location_id: number;
      gaps: string;
      covered: string;
      no_data: string;
      first_hour: Date | null;
      known_empty: boolean;
    }>`
      select location_id, gaps::text as gaps, covered_ranges::text as covered,
        no_data_ranges::text as no_data, first_hour, known_empty
      from analytics.coverage order by location_id`.execute(wh.app.db);
    expect(rows).toEqual([
      {
        location_id: saoPaulo,
        gaps: '{}',
        covered: '{}',
        no_data: '{["2024-06-01 00:00:00+00","2024-06-05 00:00:00+00")}',
        first_hour: null,
        known_empty: true,
      },
      {
        location_id: rome,
        gaps: '{["2024-06-03 00:00:00+00","2024-06-05 00:00:00+00")}',
        covered:
          '{["2024-06-01 00:00:00+00","2024-06-03 00:00:00+00"),["2024-06-05 00:00:00+00","2024-06-07 00:00:00+00")}',
        no_data: '{["2024-06-03 00:00:00+00","2024-06-05 00:00:00+00")}',
        first_hour: new Date('2024-06-01T00:00:00Z'),
        known_empty: false,
      },
    ]);
  });
});
