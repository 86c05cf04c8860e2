import type { FillResult, ForecastProduct } from './warehouse-fill.js';
import { CLASS_LABEL, TARGET_MS, type QueryClass } from './warehouse-queries.js';
import type { QueryTiming } from './warehouse-timing.js';
import type { TableSize } from './warehouse-sizes.js';
import { fmtInt, fmtMb, fmtSec, printMisses, rate, table, verdict } from './report.js';

export interface WarehouseReport {
  readonly options: {
    readonly locations: number;
    readonly years: number;
    readonly pollenYears: number;
    readonly forecastNights: number;
    readonly forecastProducts: readonly ForecastProduct[];
    readonly facts: boolean;
    readonly runs: number;
  };
  /** Locations per pollen region. */
  readonly regions: Readonly<Record<string, number>>;
  readonly fill: FillResult;
  /** Null when the facts were skipped: nothing to roll up. */
  readonly rollup: { readonly rows: number; readonly seconds: number } | null;
  readonly analyzeSeconds: number;
  readonly vacuumSeconds: number;
  readonly sizes: readonly TableSize[];
  readonly databaseBytes: number;
  readonly timings: readonly QueryTiming[];
}

const fmtMs = (ms: number): string => ms.toFixed(1);
const ratio = (before: number, after: number): string =>
  after > 0 ? `${(before / after).toFixed(1)}× faster` : '-';

/** What each class is judged on: the round trip, or for a current forecast the server's time. */
const JUDGED_ON: Readonly<Record<QueryClass, string>> = {
  daily: 'round trip',
  hourly: 'round trip',
  current: 'in the server',
};

function judgedMs(t: QueryTiming): number {
  return t.query.queryClass === 'current' ? t.serverMs : t.medianMs;
}
const perRow = (bytes: number, rows: number): string =>
  rows > 0 ? (bytes / rows).toFixed(1) : '-';

/**
 * Prints the scale, fill, rollup, sizes and query timings. Targets are judged on each query's
 * median: the machine the bench runs on is usually shared, and the p95 of a dozen runs is
 * their slowest, which measures the neighbours as much as the query; the p95 is printed beside.
 */
export function printWarehouseReport(r: WarehouseReport): void {
  const o = r.options;
  const f = r.fill;
  const factRows = Object.values(f.facts).reduce((n, t) => n + t.rows, 0);
  const fillSeconds =
    Object.values(f.facts).reduce((s, t) => s + t.seconds, 0) +
    f.snapshots.seconds +
    f.coverageSeconds;
  const span = (s: { from: Date; to: Date }) =>
    `${s.from.toISOString().slice(0, 10)} → ${s.to.toISOString().slice(0, 10)}`;
  console.log('');
  const facts = o.facts
    ? `weather ${o.years} years (${span(f.spans.weather)}), ` +
      `pollen + species ${o.pollenYears} years (${span(f.spans.pollen)})`
    : 'no hourly facts (the ledger alone says they landed)';
  console.log(
    `envdata bench:warehouse — ${o.locations} locations, ${facts}, ` +
      `forecasts of ${o.forecastNights} nights (${o.forecastProducts.join(', ')}, ${span(f.spans.forecast)})`,
  );
  console.log(
    `locations per pollen region: ${Object.entries(r.regions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log('');
  console.log(
    table(
      ['fill (server-side INSERT … SELECT)', 'rows', 'seconds', 'rows/s'],
      [
        ...Object.entries(f.facts).map(([name, t]) => [
          name,
          fmtInt(t.rows),
          fmtSec(t.seconds),
          fmtInt(rate(t.rows, t.seconds)),
        ]),
        [
          'forecast snapshots',
          fmtInt(f.snapshots.rows),
          fmtSec(f.snapshots.seconds),
          fmtInt(rate(f.snapshots.rows, f.snapshots.seconds)),
        ],
        [
          'fact rows, all',
          fmtInt(factRows),
          fmtSec(fillSeconds),
          fmtInt(rate(factRows, fillSeconds)),
        ],
      ],
    ),
  );
  const rollup = r.rollup
    ? `every location and dataset marked dirty, envdata.refresh_daily_rollups() wrote ` +
      `${fmtInt(r.rollup.rows)} rows in ${fmtSec(r.rollup.seconds)} s (${fmtInt(rate(factRows, r.rollup.seconds))} fact rows/s)`
    : 'not refreshed (no facts)';
  console.log(
    `daily rollups: ${rollup}; ANALYZE ${fmtSec(r.analyzeSeconds)} s, VACUUM ${fmtSec(r.vacuumSeconds)} s`,
  );
  console.log('');
  console.log(
    table(
      [
        'table (all partitions)',
        'rows',
        'heap',
        'indexes',
        'heap B/row',
        'index B/row',
        'total B/row',
      ],
      r.sizes.map((s) => [
        s.table,
        fmtInt(s.rows),
        fmtMb(s.heapBytes),
        fmtMb(s.indexBytes),
        perRow(s.heapBytes, s.rows),
        perRow(s.indexBytes, s.rows),
        perRow(s.heapBytes + s.indexBytes, s.rows),
      ]),
    ),
  );
  console.log(`database size ${fmtMb(r.databaseBytes)}`);
  console.log('');
  const misses: string[] = [];
  const byId = new Map(r.timings.map((t) => [t.query.id, t]));
  const rows = r.timings.map((t) => {
    const target = TARGET_MS[t.query.queryClass];
    const judged = judgedMs(t);
    const ok = judged < target;
    const baseline = t.query.baselineOf !== undefined;
    if (!ok && !baseline) {
      misses.push(
        `query ${t.query.id} (${t.query.title}): median ${fmtMs(judged)} ms ${JUDGED_ON[t.query.queryClass]}, target < ${target} ms`,
      );
    }
    return [
      `${t.query.id}. ${t.query.title}`,
      fmtInt(t.rows),
      fmtMs(t.medianMs),
      fmtMs(t.p95Ms),
      fmtMs(t.serverMs),
      CLASS_LABEL[t.query.queryClass],
      baseline
        ? `baseline of ${t.query.baselineOf}`
        : `< ${target} ms ${JUDGED_ON[t.query.queryClass]}`,
      baseline ? '-' : verdict(ok),
    ];
  });
  console.log(
    `example queries of docs/warehouse-queries.md as envdata_bi: 1 warm-up, then ${o.runs} runs each; judged on the median`,
  );
  console.log(
    table(['query', 'rows', 'median ms', 'p95 ms', 'server ms', 'class', 'target', 'result'], rows),
  );
  console.log(
    'server ms: EXPLAIN (ANALYZE, TIMING OFF), planning + execution, every row produced and none sent. ' +
      "A current forecast is judged on it: its 100 000 rows' round trip is mostly node-postgres parsing them (about 5 µs a row).",
  );
  for (const t of r.timings) {
    const before = t.query.baselineOf === undefined ? undefined : t;
    const after = before && byId.get(before.query.baselineOf!);
    if (!before || !after) continue;
    console.log(
      `${after.query.id} against its baseline ${before.query.id}: server ${fmtMs(after.serverMs)} ms vs ${fmtMs(before.serverMs)} ms ` +
        `(${ratio(before.serverMs, after.serverMs)}), round trip ${fmtMs(after.medianMs)} ms vs ${fmtMs(before.medianMs)} ms (${ratio(before.medianMs, after.medianMs)})`,
    );
  }
  console.log('');
  printMisses(misses);
}
