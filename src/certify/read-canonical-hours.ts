import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { canonicalLine, canonicalSelect, canonicalTables } from './canonical-form.js';

/** One hour of a range in canonical form: its lines (none when it has no rows) and answers. */
export interface CanonicalHour {
  /** `YYYY-MM-DDTHH:00:00Z`. */
  readonly hour: string;
  readonly lines: readonly string[];
  /** The answers (envdata.answer ids) that set its rows; rows landed before 0051 add none. */
  readonly answerIds: readonly string[];
  /** Its rows that name no answer (landed before provenance was kept, migration 0051). */
  readonly untracedRows: number;
}

const HOUR_MS = 3_600_000;
/** Rows are read a slice of hours at a time: a location-year is 12 queries, never all at once. */
const SLICE_HOURS = 24 * 31;

/** `YYYY-MM-DDTHH:00:00Z` of an instant on a whole hour. */
export const hourIso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * Every hour of [from, to) at the location, in order, with its canonical lines: read a slice at
 * a time, so a long range streams. Run it inside one transaction (`readCertifiable`) so every
 * slice reads the same snapshot, with extra_float_digits set for the float4 text.
 */
export async function* readCanonicalHours(
  db: Kysely<Database>,
  range: { dataset: Dataset; locationId: number; from: Date; to: Date },
): AsyncGenerator<CanonicalHour> {
  const tables = canonicalTables(range.dataset);
  for (
    let start = range.from.getTime();
    start < range.to.getTime();
    start += SLICE_HOURS * HOUR_MS
  ) {
    const end = Math.min(start + SLICE_HOURS * HOUR_MS, range.to.getTime());
    const byHour = new Map<string, { lines: string[]; answers: Set<string>; untraced: number }>();
    for (const table of tables) {
      const { columns, order } = canonicalSelect(table);
      const { rows } = await sql<
        { hour: string; answer_id: string | null } & Record<string, string | null>
      >`
        select ${sql.raw(columns)} from ${sql.raw(table.from)}
        where f.location_id = ${range.locationId}
          and f.observed_at >= ${new Date(start)} and f.observed_at < ${new Date(end)}
        order by ${sql.raw(order)}`.execute(db);
      for (const row of rows) {
        let hour = byHour.get(row.hour);
        if (!hour) byHour.set(row.hour, (hour = { lines: [], answers: new Set(), untraced: 0 }));
        hour.lines.push(canonicalLine(table, row));
        if (row.answer_id === null) hour.untraced += 1;
        else hour.answers.add(row.answer_id);
      }
    }
    for (let at = start; at < end; at += HOUR_MS) {
      const iso = hourIso(at);
      const hour = byHour.get(iso);
      yield {
        hour: iso,
        lines: hour?.lines ?? [],
        answerIds: hour ? [...hour.answers] : [],
        untracedRows: hour?.untraced ?? 0,
      };
    }
  }
}
