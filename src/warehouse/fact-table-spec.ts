import type { FactRow } from './fact-rows.js';

/** Column types whose values are JS numbers (`NaN` and `±Infinity` included for `real`). */
export type NumericColumnType = 'real' | 'int' | 'smallint';

/** Column types whose values are JS strings: `text` or an enum (`envdata.weather_icon`). */
export type TextColumnType = 'text' | `${string}.${string}`;

/** A column whose values are numbers. */
export interface NumericColumn<Row> {
  readonly name: string;
  readonly type: NumericColumnType;
  readonly value: (row: Row) => number | null;
}

/** A column whose values are strings. */
export interface TextColumn<Row> {
  readonly name: string;
  readonly type: TextColumnType;
  readonly value: (row: Row) => string | null;
}

/** One column of a fact table: its name, its Postgres type and how a row gives its value. */
export type FactColumn<Row> = NumericColumn<Row> | TextColumn<Row>;

/** Whether `column` holds numbers (`real`, `int`, `smallint`). */
export function isNumericColumn<Row>(column: FactColumn<Row>): column is NumericColumn<Row> {
  return column.type === 'real' || column.type === 'int' || column.type === 'smallint';
}

/**
 * A fact table as `upsertFacts` writes it. Every fact table is keyed by `location_id` (from the
 * row's group) and `observed_at` (`row.observedAt`), then by `key`, and holds `columns`; its
 * primary key is exactly those key columns.
 */
export interface FactTableSpec<Row extends FactRow> {
  /** Schema-qualified: `envdata.weather_hourly`. */
  readonly table: `${string}.${string}`;
  /** Key columns after `location_id, observed_at` (the pollen type, the species id); never null. */
  readonly key: readonly FactColumn<Row>[];
  /** The other columns, in the table's order. */
  readonly columns: readonly FactColumn<Row>[];
}

const NAME = /^[a-z_][a-z0-9_]*$/;
const TYPE = /^(real|int|smallint|text|[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)$/;

/**
 * Declares a fact table, typing each `value` by the row it reads. Names and types go into SQL
 * as written, so they are checked here, once, against plain identifiers.
 *
 * @example
 * const POLLEN = defineFactTable<PollenTypeRow>({
 *   table: 'envdata.pollen_hourly',
 *   key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
 *   columns: [{ name: 'count', type: 'int', value: (r) => r.count }],
 * });
 */
export function defineFactTable<Row extends FactRow>(spec: FactTableSpec<Row>): FactTableSpec<Row> {
  const [schema, table] = spec.table.split('.');
  const problems: string[] = [];
  if (!schema || !table || !NAME.test(schema) || !NAME.test(table)) {
    problems.push(`table "${spec.table}" is not schema.name`);
  }
  const names = new Set(['location_id', 'observed_at']);
  for (const column of [...spec.key, ...spec.columns]) {
    if (!NAME.test(column.name)) problems.push(`column "${column.name}" is not a plain name`);
    if (!TYPE.test(column.type)) problems.push(`column ${column.name}: type "${column.type}"`);
    if (names.has(column.name)) problems.push(`column ${column.name} is declared twice`);
    names.add(column.name);
  }
  if (spec.columns.length === 0) problems.push('a fact table needs at least one column');
  if (problems.length > 0) {
    throw new TypeError(`fact table ${spec.table}: ${problems.join('; ')}`);
  }
  return Object.freeze({
    table: spec.table,
    key: Object.freeze([...spec.key]),
    columns: Object.freeze([...spec.columns]),
  });
}
