import type { Freshness } from '../ledger/read-freshness.js';
import { formatDuration } from '../planner/estimate-plan.js';
import { DATASETS, type Dataset } from '../types.js';
import type { Paint } from './create-paint.js';

/** One location's freshness in both datasets: a row of the `status` table. */
export interface LocationFreshness {
  readonly locationId: number;
  readonly name: string;
  readonly stale: boolean;
  readonly datasets: Readonly<Partial<Record<Dataset, Freshness>>>;
}

/**
 * Per-dataset freshness (`readFreshness`) as one row per location, stale ones first — the
 * longest lag first, never ingested before all — then the fresh ones by name.
 */
export function freshnessByLocation(freshness: readonly Freshness[]): LocationFreshness[] {
  const rows = new Map<number, { name: string; datasets: Partial<Record<Dataset, Freshness>> }>();
  for (const f of freshness) {
    const row = rows.get(f.locationId) ?? { name: f.name, datasets: {} };
    row.datasets[f.dataset] = f;
    rows.set(f.locationId, row);
  }
  const worstLag = (row: LocationFreshness) =>
    Math.max(
      ...Object.values(row.datasets).map((f) => (f.lagHours === null ? Infinity : f.lagHours)),
    );
  return [...rows]
    .map(([locationId, row]) => ({
      locationId,
      name: row.name,
      stale: Object.values(row.datasets).some((f) => f.stale),
      datasets: row.datasets,
    }))
    .sort((a, b) => {
      if (a.stale !== b.stale) return a.stale ? -1 : 1;
      if (a.stale) {
        const byLag = worstLag(b) - worstLag(a);
        if (byLag !== 0 && !Number.isNaN(byLag)) return byLag;
      }
      return a.name.localeCompare(b.name) || a.locationId - b.locationId;
    });
}

/**
 * The freshness table of `envdata status`, one aligned row per location:
 *
 * ```
 * state  location  pollen last hour  lag    weather last hour  lag
 * STALE  Brisbane  never             —      2024-06-30 11:00   1 h
 * ok     Berlin    2024-06-30 11:00  1 h    2024-06-30 11:00   1 h
 * ok     São Paulo known empty       1 h    2024-06-30 11:00   1 h
 * ```
 *
 * A known-empty dataset (`Freshness.knownEmpty`) shows its lag since the last "no data" answer.
 *
 * `paint` colours what is stale red and what is fresh green (identity when not on a terminal).
 */
export function formatFreshnessTable(
  rows: readonly LocationFreshness[],
  paint: Paint,
): readonly string[] {
  const header = ['state', 'location', ...DATASETS.flatMap((d) => [`${d} last hour`, 'lag'])];
  const cells = rows.map((row) => [
    { text: row.stale ? 'STALE' : 'ok', stale: row.stale },
    { text: row.name, stale: false },
    ...DATASETS.flatMap((dataset) => {
      const f = row.datasets[dataset];
      const stale = f?.stale ?? false;
      return [
        { text: lastHourText(f), stale },
        { text: f?.lagHours == null ? '—' : formatDuration(f.lagHours * 3_600_000), stale },
      ];
    }),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => [...row[i]!.text].length)),
  );
  // The last column is not padded: no trailing spaces, coloured or not.
  const pad = (text: string, i: number) =>
    i === widths.length - 1 ? text : text + ' '.repeat(widths[i]! - [...text].length);
  const join = (parts: readonly string[]) => parts.join('  ');
  return [
    paint('dim', join(header.map(pad))),
    ...cells.map((row) =>
      join(
        row.map((cell, i) => {
          const text = pad(cell.text, i);
          if (i === 0) return paint(cell.stale ? ['bold', 'red'] : 'green', text);
          return cell.stale ? paint('red', text) : text;
        }),
      ),
    ),
  ];
}

/** A known-empty pair says so: the service answered "no data" for every hour asked. */
function lastHourText(f: Freshness | undefined): string {
  if (f?.knownEmpty) return 'known empty';
  return f?.lastHour ? formatHour(f.lastHour) : 'never';
}

function formatHour(hour: Date): string {
  return `${hour.toISOString().slice(0, 13).replace('T', ' ')}:00`;
}
