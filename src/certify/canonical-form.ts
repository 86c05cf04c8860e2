import { WEATHER_COLUMNS } from '../datasets/weather/weather-tables.js';
import type { Dataset } from '../types.js';
import { isNumericColumn } from '../warehouse/fact-table-spec.js';

/** The version of the canonical rows a certificate's subject digest is taken over. */
export const CANONICAL_FORM = 'envdata-canonical-rows/v1';

/** How a column's value is written in a canonical line. */
type ColumnKind = 'number' | 'text';

/** A fact table's columns in their canonical order (after the hour and the table's name). */
interface CanonicalTable {
  readonly table: string;
  /** The key columns after `observed_at`, as the line writes them and the rows sort by them. */
  readonly key: readonly { readonly sql: string; readonly kind: ColumnKind }[];
  readonly values: readonly { readonly sql: string; readonly kind: ColumnKind }[];
  /** The FROM clause (a join for the species' names). */
  readonly from: string;
}

const number = (sql: string) => ({ sql, kind: 'number' as const });
const text = (sql: string) => ({ sql, kind: 'text' as const });

const WEATHER: CanonicalTable = {
  table: 'weather_hourly',
  key: [],
  // The declared columns, in the table's order: the measures as numbers, the rest as text.
  values: WEATHER_COLUMNS.map((c) => (isNumericColumn(c) ? number : text)(`f.${c.name}`)),
  from: 'envdata.weather_hourly f',
};

const POLLEN: CanonicalTable = {
  table: 'pollen_hourly',
  key: [text('f.pollen_type')],
  values: [number('f.count'), text('f.risk_level')],
  from: 'envdata.pollen_hourly f',
};

const SPECIES: CanonicalTable = {
  table: 'pollen_species_hourly',
  key: [text('s.category'), text('s.name')],
  values: [number('f.count'), text('f.risk_level')],
  from: 'envdata.pollen_species_hourly f join envdata.pollen_species s using (species_id)',
};

/**
 * The fact tables of a dataset in the order their lines come within an hour: weather one line
 * an hour; pollen its types' lines (by type name), then its species' lines (by category, name).
 */
export function canonicalTables(dataset: Dataset): readonly CanonicalTable[] {
  return dataset === 'weather' ? [WEATHER] : [POLLEN, SPECIES];
}

/**
 * The SELECT list and ORDER BY of one table's rows in canonical order: the hour as
 * `YYYY-MM-DDTHH:MM:SSZ`, each key and value column as text (float4 as Postgres writes it with
 * extra_float_digits ≥ 1: the shortest decimal that reads back as the same float4), and the
 * row's answer id (not part of the line). The caller adds FROM `table.from` and its WHERE.
 */
export function canonicalSelect(table: CanonicalTable): { columns: string; order: string } {
  const columns = [...table.key, ...table.values].map((c, i) => `${c.sql}::text as c${i}`);
  const order = ['f.observed_at', ...table.key.map((k) => `${k.sql}::text collate "C"`)];
  return {
    columns: [
      `to_char(f.observed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as hour`,
      ...columns,
      'f.answer_id::text as answer_id',
    ].join(', '),
    order: order.join(', '),
  };
}

/** A number column's token: the text as is, `null`, or NaN/±Infinity as a JSON string. */
function numberToken(value: string | null): string {
  if (value === null) return 'null';
  return /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(value)
    ? value
    : JSON.stringify(value);
}

/**
 * One canonical line (without its newline): a JSON array with no spaces, `[hour, table, key…,
 * value…]`, strings as `JSON.stringify` writes them (UTF-8, no `\u` escapes but for control
 * characters), numbers as their Postgres text, nulls as `null`.
 */
export function canonicalLine(
  table: CanonicalTable,
  row: { readonly hour: string } & Readonly<Record<string, string | null>>,
): string {
  const columns = [...table.key, ...table.values];
  const tokens = [JSON.stringify(row.hour), JSON.stringify(table.table)];
  columns.forEach((c, i) => {
    const value = row[`c${i}`] ?? null;
    tokens.push(
      c.kind === 'number' ? numberToken(value) : value === null ? 'null' : JSON.stringify(value),
    );
  });
  return `[${tokens.join(',')}]`;
}

/** The hour a canonical line is of (its first element). */
export function hourOfLine(line: string): string {
  return line.slice(2, 22);
}

export type { CanonicalTable };
