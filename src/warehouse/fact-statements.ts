import { sql, type RawBuilder } from 'kysely';
import type { FactRow } from './fact-rows.js';
import type { LocatedRows } from './located-rows.js';
import { isNumericColumn, type FactColumn, type FactTableSpec } from './fact-table-spec.js';
import { inStoredRange, storedRanges } from './stored-ranges.js';
import {
  ArrayLiteral,
  copyData,
  copyIn,
  encodeCopyTuples,
  factDigest,
  named,
  storedDigest,
  type Statement,
} from './wire/index.js';

/**
 * The statements that write fact rows (`writeFacts` sends them): a probe of what is stored, the
 * rows believed new as a COPY or an INSERT, and the upsert of rows that changed.
 */

/** How fact rows travel; `bench:upsert` measures what each earns (docs/scaling.md). */
export interface FactWire {
  /** Rows believed new as one binary COPY of the tuples staged with their landing. */
  readonly copy: boolean;
}

/** `envdata_weather_hourly` for `envdata.weather_hourly`: part of its statements' names. */
function nameOf<Row extends FactRow>(table: FactTableSpec<Row>): string {
  return table.table.replace('.', '_');
}

/** What `probeStatement` reads of one group: its position, the rows stored in its hours and their digest. */
export interface ProbedGroup {
  /** 1-based position of the group in the batch probed. */
  readonly i: number;
  readonly n: number;
  readonly digest: Buffer;
}

/**
 * Per group of `groups` (non-empty), how many rows are stored in its hours and their digest
 * (`storedDigest`): one index range scan per group; groups with none stored are left out.
 */
export function probeStatement<Row extends FactRow>(
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
): Statement<ProbedGroup> {
  const stored = storedRanges(groups);
  return named(
    `probe_${nameOf(table)}`,
    sql<ProbedGroup>`
    select g.i::int as i, x.n::int as n, x.digest
    from ${stored.ranges}
    cross join lateral (
      select count(*) as n, ${storedDigest(table, 's')} as digest
      from ${sql.table(table.table)} s
      where ${inStoredRange('s', stored)}
    ) x
    where x.n > 0`,
  );
}

/**
 * Each group's digest as `storedDigest` computes it over stored rows (`factDigest`): staged
 * with its landing, or computed now.
 */
export function factDigests<Row extends FactRow>(
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
): readonly (Buffer | undefined)[] {
  return groups.map((group) =>
    group.staged ? group.staged.digest : factDigest(table, group.rows),
  );
}

/**
 * The groups not stored exactly as they are: a different count or digest than the probe read
 * (an unequal digest proves nothing; the upsert decides, writing only rows that differ).
 */
export function changedGroups<Row extends FactRow>(
  groups: readonly LocatedRows<Row>[],
  probed: readonly ProbedGroup[],
  digests: readonly (Buffer | undefined)[],
): LocatedRows<Row>[] {
  const storedOf = new Map(probed.map((p) => [p.i - 1, p]));
  return groups.filter((group, i) => {
    const s = storedOf.get(i);
    if (s === undefined || s.n !== group.rows.length) return true;
    return !digests[i]?.equals(s.digest);
  });
}

/**
 * The statement writing every row of `groups`, believed new (`WriteFactsOptions.assumeNew`): one binary
 * COPY or one plain INSERT, which a row stored already fails (a unique violation).
 */
export function newFactsStatement<Row extends FactRow>(
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
  wire: FactWire,
): Statement<unknown> {
  const batch = groups.filter((g) => g.rows.length > 0);
  return (wire.copy && copyStatement(table, batch)) || insertStatement(table, batch);
}

/** Rows in `groups`. */
export function rowCount(groups: readonly LocatedRows<FactRow>[]): number {
  let n = 0;
  for (const group of groups) n += group.rows.length;
  return n;
}

/**
 * The rows as one binary COPY (the tuples staged with their landing, or encoded now): the
 * server's fastest way in; `undefined` when a value's binary form could not stand for it.
 */
function copyStatement<Row extends FactRow>(
  table: FactTableSpec<Row>,
  batch: readonly LocatedRows<Row>[],
): Statement<unknown> | undefined {
  const tuples: Buffer[] = [];
  for (const g of batch) {
    const encoded = g.staged
      ? g.staged.copyTuples
      : encodeCopyTuples(table, g.locationId, g.rows, g.answerId ?? null);
    if (encoded === undefined) return undefined;
    tuples.push(encoded);
  }
  return copyIn(
    sql`copy ${sql.table(table.table)} (${columnList(table, '')}) from stdin (format binary)`,
    copyData(tuples),
  );
}

function insertStatement<Row extends FactRow>(
  table: FactTableSpec<Row>,
  batch: readonly LocatedRows<Row>[],
): Statement<unknown> {
  return named(
    `insert_${nameOf(table)}`,
    sql`insert into ${sql.table(table.table)} (${columnList(table, '')}) ${rowsOf(table, batch)}`,
  );
}

function allColumns<Row extends FactRow>(table: FactTableSpec<Row>): readonly FactColumn<Row>[] {
  return [...table.key, ...table.columns];
}

/** `location_id, observed_at, <key…>, <columns…>, answer_id`, each name after `prefix`. */
function columnList<Row extends FactRow>(table: FactTableSpec<Row>, prefix: string) {
  const names = ['location_id', 'observed_at', ...allColumns(table).map((c) => c.name)];
  return sql.raw([...names, 'answer_id'].map((n) => `${prefix}${n}`).join(', '));
}

/** The value columns as a row, `(a.x, a.y)`, for `is [not] distinct from`. */
function valueRow<Row extends FactRow>(table: FactTableSpec<Row>, alias: string) {
  return sql.raw(`(${table.columns.map((c) => `${alias}.${c.name}`).join(', ')})`);
}

/**
 * The batch's rows as a select of one array literal per column (`ArrayLiteral`), cast by the
 * server; `unnest()` in the select list, cheaper than `FROM unnest(…)`. The columns are those of
 * `columnList`.
 */
function rowsOf<Row extends FactRow>(
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
): RawBuilder<unknown> {
  const columns = allColumns(table);
  const locationIds = new ArrayLiteral();
  const observedAt = new ArrayLiteral();
  const answerIds = new ArrayLiteral();
  const arrays = columns.map(() => new ArrayLiteral());
  for (const { locationId, rows, answerId } of groups) {
    for (const row of rows) {
      locationIds.number(locationId);
      observedAt.instant(row.observedAt);
      answerIds.number(answerId ?? null);
      for (let c = 0; c < columns.length; c++) {
        const column = columns[c]!;
        if (isNumericColumn(column)) arrays[c]!.number(column.value(row));
        else arrays[c]!.string(column.value(row));
      }
    }
  }
  const unnests = columns.map(
    (column, c) =>
      sql`unnest(${arrays[c]!.build()}::${sql.raw(column.type)}[]) as ${sql.raw(column.name)}`,
  );
  return sql`
    select location_id, to_timestamp(observed_at) as observed_at, ${sql.raw(columns.map((c) => c.name).join(', '))}, answer_id
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at, ${sql.join(unnests)},
        unnest(${answerIds.build()}::bigint[]) as answer_id
    ) r`;
}

/**
 * The upsert: rows identical to the stored ones (read with one index range scan per group) are
 * left out, so they are neither locked nor rewritten; the rest go through `ON CONFLICT … DO
 * UPDATE … WHERE … IS DISTINCT FROM`, taking their answer as their source. A row updated keeps
 * its values before in the table's revisions (`<table>_revision`, the trigger of migration 0051).
 */
export function upsertStatement<Row extends FactRow>(
  table: FactTableSpec<Row>,
  groups: readonly LocatedRows<Row>[],
): Statement<unknown> {
  const stored = storedRanges(groups);
  const target = sql.table(table.table);
  const keyNames = ['location_id', 'observed_at', ...table.key.map((k) => k.name)];
  const sameKey = sql.raw(keyNames.map((k) => `s.${k} = u.${k}`).join(' and '));
  const setList = sql.raw(
    [...table.columns.map((c) => c.name), 'answer_id']
      .map((c) => `${c} = excluded.${c}`)
      .join(', '),
  );
  return named(
    `upsert_${nameOf(table)}`,
    sql`
    with u as materialized (${rowsOf(table, groups)}),
    stored as materialized (
      -- offset 0 keeps the lateral one index range scan per group, never a join that could
      -- scan the whole table; materialized, the anti-join below hashes it once.
      select x.* from ${stored.ranges}
      cross join lateral (
        select ${columnList(table, 's.')} from ${target} s
        where ${inStoredRange('s', stored)}
        offset 0) x
    )
    insert into ${target} as t (${columnList(table, '')})
    select * from u
    where not exists (
      select from stored s
      where ${sameKey} and ${valueRow(table, 's')} is not distinct from ${valueRow(table, 'u')})
    on conflict (${sql.raw(keyNames.join(', '))}) do update set ${setList}
    where ${valueRow(table, 't')} is distinct from ${valueRow(table, 'excluded')}`,
  );
}
