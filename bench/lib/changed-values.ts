import type { Dataset } from '../../src/types.js';

/**
 * A re-land with a share of the values changed, as the service answers a re-read after revising
 * its history: the hours of a location whose `(epoch hour + 37 × location id)` is a multiple of
 * `every` (exactly one hour in `every`, spread over every chunk) get weather `temperature` +0.5 °C
 * × `level`, and every pollen count of the hour (each type's `Count`, each species' and `Others`)
 * + `level`, over the simulator's values: one row in `every` of each fact table changes.
 *
 * Each `every` divides the one before, with a higher `level`, so each changed re-land changes
 * exactly its own share of the rows: the hours it selects include the ones changed before, and
 * those move on to the new level.
 */
export interface ValueChange {
  /** "1 %", for the report. */
  readonly label: string;
  readonly every: number;
  readonly level: number;
}

/** The changed re-lands `bench:upsert` runs after the identical one, in this order. */
export const VALUE_CHANGES: readonly ValueChange[] = [
  { label: '1 %', every: 100, level: 1 },
  { label: '10 %', every: 10, level: 2 },
];

const HOUR_S = 3_600;

/** Whether `change` changes this hour (epoch seconds) of the location. */
function selected(change: ValueChange, locationId: number, timeS: number): boolean {
  return (Math.floor(timeS / HOUR_S) + 37 * locationId) % change.every === 0;
}

type Counts = Record<string, unknown>;

interface HistoryRecord {
  time?: unknown;
  temperature?: unknown;
  Count?: Counts;
  Species?: Counts;
}

/** Adds `by` to each whole count in `counts` and in the groups under it; how many it changed. */
function raiseCounts(counts: Counts | undefined, by: number): number {
  let changed = 0;
  for (const [name, value] of Object.entries(counts ?? {})) {
    if (typeof value === 'number') {
      counts![name] = value + by;
      changed++;
    } else if (typeof value === 'object' && value !== null) {
      changed += raiseCounts(value as Counts, by);
    }
  }
  return changed;
}

/** The records of a weather (`data.history`) or pollen (`data`) history body. */
function recordsOf(dataset: Dataset, parsed: unknown): HistoryRecord[] {
  const data = (parsed as { data?: unknown }).data;
  const records = dataset === 'weather' ? (data as { history?: unknown })?.history : data;
  if (!Array.isArray(records)) throw new Error(`a ${dataset} history body without records`);
  return records as HistoryRecord[];
}

/**
 * `body` (a history answer of `dataset` for the location) with `change` applied, and how many
 * rows that changes (of `weather_hourly`; of `pollen_hourly` and `pollen_species_hourly`); the
 * body as it was when it changes none.
 */
export function changeBody(
  dataset: Dataset,
  locationId: number,
  body: string,
  change: ValueChange,
): { readonly body: string; readonly changed: number } {
  const parsed: unknown = JSON.parse(body);
  let changed = 0;
  for (const record of recordsOf(dataset, parsed)) {
    if (typeof record.time !== 'number' || !selected(change, locationId, record.time)) continue;
    if (dataset === 'pollen') {
      changed +=
        raiseCounts(record.Count, change.level) + raiseCounts(record.Species, change.level);
    } else if (typeof record.temperature === 'number') {
      record.temperature = Math.round((record.temperature + 0.5 * change.level) * 100) / 100;
      changed++;
    }
  }
  return changed === 0 ? { body, changed } : { body: JSON.stringify(parsed), changed };
}
