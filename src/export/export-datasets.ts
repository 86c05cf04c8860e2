import { WEATHER_COLUMNS } from '../datasets/weather/weather-tables.js';
import type { FactColumn } from '../warehouse/fact-table-spec.js';

/**
 * What `envdata export parquet` writes (docs/export.md): the facts, the daily rollups and the
 * locations, each column with its Parquet (DuckDB) type, how Postgres writes it for the CSV that
 * DuckDB reads, and how both engines write it in a canonical line for the digest.
 */

/** The DuckDB (and so Parquet) types of the exported columns. */
export type ExportType =
  'INTEGER' | 'SMALLINT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'VARCHAR' | 'TIMESTAMPTZ' | 'DATE';

export interface ExportColumn {
  readonly name: string;
  readonly type: ExportType;
  /** The Postgres expression (in the dataset's FROM) whose text the CSV carries. */
  readonly sql: string;
}

/** How a dataset is split into files: by the UTC month of its hour, of its local day, or not. */
export type PartitionBy = 'hour' | 'day' | 'none';

export interface ExportDataset {
  /** The `dataset=` directory and the view name of `export query`. */
  readonly name: string;
  readonly partitionBy: PartitionBy;
  readonly from: string;
  /** The Postgres expression partitions are ranges of (`observed_at`, `local_date`). */
  readonly time: string;
  /** The exported column that holds it. */
  readonly timeColumn: string;
  readonly columns: readonly ExportColumn[];
}

const col = (name: string, type: ExportType, sql = `f.${name}`): ExportColumn => ({
  name,
  type,
  sql,
});
const enumText = (name: string) => col(name, 'VARCHAR', `f.${name}::text`);

/**
 * A column declared by a dataset's tables (`declareTables`) as exported: `real` as FLOAT, the
 * integers as themselves, text as VARCHAR, an enum as its text.
 */
function declaredColumn(column: FactColumn<never>): ExportColumn {
  switch (column.type) {
    case 'real':
      return col(column.name, 'FLOAT');
    case 'int':
      return col(column.name, 'INTEGER');
    case 'smallint':
      return col(column.name, 'SMALLINT');
    case 'text':
      return col(column.name, 'VARCHAR');
    default:
      return enumText(column.name);
  }
}

/**
 * The measures of `envdata.weather_daily_rollup`, each as `_min`, `_max` and `_mean`: the hourly
 * measures but the bearing, the shares in percent. Declared by the migrations that create the
 * rollup (0004, 0009), which import no app code, so not derivable from `WEATHER_COLUMNS`.
 */
const WEATHER_DAILY_MEASURES = [
  'temperature_c',
  'apparent_temperature_c',
  'dew_point_c',
  'humidity_pct',
  'pressure_hpa',
  'wind_speed_ms',
  'wind_gust_ms',
  'cloud_cover_pct',
  'visibility_km',
  'uv_index',
  'ozone_du',
  'precip_intensity_mm_h',
  'precip_probability_pct',
];

export const EXPORT_DATASETS: readonly ExportDataset[] = [
  {
    name: 'weather_hourly',
    partitionBy: 'hour',
    from: 'envdata.weather_hourly f',
    time: 'f.observed_at',
    timeColumn: 'observed_at',
    columns: [
      col('location_id', 'INTEGER'),
      col('observed_at', 'TIMESTAMPTZ'),
      ...WEATHER_COLUMNS.map(declaredColumn),
      col('answer_id', 'BIGINT'),
    ],
  },
  {
    name: 'pollen_hourly',
    partitionBy: 'hour',
    from: 'envdata.pollen_hourly f',
    time: 'f.observed_at',
    timeColumn: 'observed_at',
    columns: [
      col('location_id', 'INTEGER'),
      col('observed_at', 'TIMESTAMPTZ'),
      enumText('pollen_type'),
      col('count', 'INTEGER'),
      enumText('risk_level'),
      col('answer_id', 'BIGINT'),
    ],
  },
  {
    name: 'pollen_species_hourly',
    partitionBy: 'hour',
    from: 'envdata.pollen_species_hourly f join envdata.pollen_species s using (species_id)',
    time: 'f.observed_at',
    timeColumn: 'observed_at',
    columns: [
      col('location_id', 'INTEGER'),
      col('observed_at', 'TIMESTAMPTZ'),
      col('species_id', 'SMALLINT'),
      col('species_category', 'VARCHAR', 's.category::text'),
      col('species_name', 'VARCHAR', 's.name'),
      col('count', 'INTEGER'),
      enumText('risk_level'),
      col('answer_id', 'BIGINT'),
    ],
  },
  {
    name: 'weather_daily',
    partitionBy: 'day',
    from: 'envdata.weather_daily_rollup f',
    time: 'f.local_date',
    timeColumn: 'local_date',
    columns: [
      col('location_id', 'INTEGER'),
      col('local_date', 'DATE'),
      col('hours', 'INTEGER'),
      ...WEATHER_DAILY_MEASURES.flatMap((m) =>
        ['min', 'max', 'mean'].map((s) => col(`${m}_${s}`, 'FLOAT')),
      ),
      col('precip_total_mm', 'FLOAT'),
    ],
  },
  {
    name: 'pollen_daily',
    partitionBy: 'day',
    from: 'envdata.pollen_daily_rollup f',
    time: 'f.local_date',
    timeColumn: 'local_date',
    columns: [
      col('location_id', 'INTEGER'),
      col('local_date', 'DATE'),
      enumText('pollen_type'),
      col('hours', 'INTEGER'),
      col('count_min', 'INTEGER'),
      col('count_max', 'INTEGER'),
      col('count_mean', 'FLOAT'),
      enumText('max_risk_level'),
    ],
  },
  {
    name: 'locations',
    partitionBy: 'none',
    from: 'envdata.location f',
    time: 'f.created_at',
    timeColumn: 'created_at',
    columns: [
      col('location_id', 'INTEGER'),
      col('name', 'VARCHAR'),
      col('lat', 'DOUBLE'),
      col('lng', 'DOUBLE'),
      col('country_code', 'VARCHAR', 'f.country_code::text'),
      col('timezone', 'VARCHAR'),
      enumText('pollen_region'),
      col('place', 'VARCHAR'),
      col('created_at', 'TIMESTAMPTZ'),
      col('retired_at', 'TIMESTAMPTZ'),
    ],
  },
];

export function exportDataset(name: string): ExportDataset {
  const dataset = EXPORT_DATASETS.find((d) => d.name === name);
  if (!dataset) throw new Error(`no exported dataset ${name}`);
  return dataset;
}

/** One partition of a dataset: a UTC (or local-day) month, or the whole of `locations`. */
export interface PartitionKey {
  readonly dataset: string;
  /** 0 for a dataset not partitioned (`locations`). */
  readonly year: number;
  readonly month: number;
}

export const partitionId = (p: PartitionKey): string =>
  p.year === 0 ? `${p.dataset}` : `${p.dataset}/${p.year}-${String(p.month).padStart(2, '0')}`;

/** The partition's file, relative to the export's directory. */
export function partitionFile(p: PartitionKey): string {
  return p.year === 0
    ? `dataset=${p.dataset}/${p.dataset}.parquet`
    : `dataset=${p.dataset}/year=${p.year}/month=${String(p.month).padStart(2, '0')}/part.parquet`;
}

/** `[from, to)` of a partition as SQL literals of its time column's type; undefined for none. */
export function partitionRange(
  dataset: ExportDataset,
  p: PartitionKey,
): { from: string; to: string } | undefined {
  if (dataset.partitionBy === 'none') return undefined;
  const first = `${p.year}-${String(p.month).padStart(2, '0')}-01`;
  const next =
    p.month === 12 ? `${p.year + 1}-01-01` : `${p.year}-${String(p.month + 1).padStart(2, '0')}-01`;
  return dataset.partitionBy === 'hour'
    ? { from: `timestamptz '${first} 00:00:00+00'`, to: `timestamptz '${next} 00:00:00+00'` }
    : { from: `date '${first}'`, to: `date '${next}'` };
}

/** The rows of a partition as Postgres selects them (CSV columns in the dataset's order). */
export function partitionSelect(dataset: ExportDataset, p: PartitionKey): string {
  const range = partitionRange(dataset, p);
  const where = range
    ? ` where ${dataset.time} >= ${range.from} and ${dataset.time} < ${range.to}`
    : '';
  return `select ${dataset.columns.map((c) => `${c.sql} as ${c.name}`).join(', ')} from ${dataset.from}${where}`;
}

/** The version of the canonical line the digests are taken over. */
export const EXPORT_CANONICAL_FORM = 'envdata-export-rows/v2';

const SEPARATOR_PG = 'chr(31)';
const NULL_TOKEN = "'\\N'";

/**
 * 2^33: every float4 x with 2^-10 ≤ |x| < 2^20 is m·2^(e−23) with e ≥ −10, so x·2^33 is a whole
 * number below 2^53, which a double holds exactly and a bigint prints the same in both engines.
 */
const FLOAT_SCALE = 8589934592;
const FLOAT_WHOLE = `>= 0.0009765625`;
const FLOAT_BELOW = `< 1048576`;

/**
 * A column's canonical text in Postgres: integers as text; a real x·2^33 as a whole number
 * where that is exact (zero, and 2^-10 ≤ |x| < 2^20: nearly every measure), else `~` and C's
 * `%.8e` (9 significant digits tell every float4 apart); a double `~` and `%.16e`; NaN and the
 * infinities by name; instants as epoch microseconds; days as days since 1970-01-01; text as it is.
 */
function pgToken(c: ExportColumn, value: string): string {
  switch (c.type) {
    case 'FLOAT':
    case 'DOUBLE': {
      const digits = c.type === 'FLOAT' ? '9.99999999' : '9.9999999999999999';
      const scaled =
        c.type === 'FLOAT'
          ? `when ${value} = 0 or (abs(${value}) ${FLOAT_WHOLE} and abs(${value}) ${FLOAT_BELOW}) then (${value}::float8 * ${FLOAT_SCALE})::bigint::text `
          : '';
      return `case when ${value}::float8 in ('NaN', 'Infinity', '-Infinity') then ${value}::float8::text ${scaled}else '~' || ltrim(to_char(${value}::float8, '${digits}EEEE')) end`;
    }
    case 'TIMESTAMPTZ':
      return `(extract(epoch from ${value}) * 1000000)::bigint::text`;
    case 'DATE':
      return `(${value} - date '1970-01-01')::text`;
    default:
      return `${value}::text`;
  }
}

/** The same canonical text in DuckDB. */
function duckToken(c: ExportColumn, value: string): string {
  switch (c.type) {
    case 'FLOAT':
    case 'DOUBLE': {
      const scaled =
        c.type === 'FLOAT'
          ? `when ${value} = 0 or (abs(${value}) ${FLOAT_WHOLE} and abs(${value}) ${FLOAT_BELOW}) then (${value}::DOUBLE * ${FLOAT_SCALE})::BIGINT::VARCHAR `
          : '';
      // The common case first: DuckDB orders NaN above every number, so neither NaN nor an
      // infinity passes `abs(x) < 2^20`, and the tests for them run only on the rest.
      return `case ${scaled}when isnan(${value}) then 'NaN' when isinf(${value}) then (case when ${value} > 0 then 'Infinity' else '-Infinity' end) else '~' || printf('${c.type === 'FLOAT' ? '%.8e' : '%.16e'}', ${value}::DOUBLE) end`;
    }
    case 'TIMESTAMPTZ':
      return `epoch_us(${value})::VARCHAR`;
    case 'DATE':
      return `datediff('day', DATE '1970-01-01', ${value})::VARCHAR`;
    default:
      return `${value}::VARCHAR`;
  }
}

/** 2^60: a NULL FLOAT's number, apart from every x·2^33 (below 2^53 in magnitude). */
const FLOAT_NULL = '1152921504606846976';

/** Each FLOAT column's 60-bit mask (multiples of the golden ratio's bits), so columns differ. */
const floatMask = (i: number): string =>
  String((BigInt(i + 1) * 0x9e3779b97f4a7c1n) & ((1n << 60n) - 1n));

/**
 * The digest of `envdata-export-rows/v2` (docs/export.md), one engine's spelling: a row is
 * "plain" when each FLOAT is NULL or x·2^33 is exact (see FLOAT_SCALE); a plain row's line holds
 * its other columns only and its floats are summed as numbers, `(x·2^33 or 2^60 for NULL) xor
 * (h xor mask)` each, h the line's hash (which binds them to their row); any other row's line
 * holds every column, as v1's did. Text is built for 7 columns a row instead of 21: the digest
 * costs DuckDB about half of v1's.
 */
function digestSelect(
  dataset: ExportDataset,
  e: {
    token: (c: ExportColumn, value: string) => string;
    separator: string;
    hash: (line: string) => string;
    scaled: (value: string) => string;
    xor: (a: string, b: string) => string;
    from: string;
    fence: string;
  },
): string {
  const floats = dataset.columns.filter((c) => c.type === 'FLOAT');
  const line = (columns: readonly ExportColumn[]) =>
    `concat_ws(${e.separator}, ${columns
      .map((c) => `coalesce(${e.token(c, `"${c.name}"`)}, ${NULL_TOKEN})`)
      .join(', ')})`;
  if (floats.length === 0) {
    return `select count(*) as rows, coalesce(sum(${e.hash(line(dataset.columns))}), 0) as digest from ${e.from}`;
  }
  const plain = floats
    .map((c) => {
      const v = `"${c.name}"`;
      return `(${v} is null or ${v} = 0 or (abs(${v}) ${FLOAT_WHOLE} and abs(${v}) ${FLOAT_BELOW}))`;
    })
    .join(' and ');
  const short = line(dataset.columns.filter((c) => c.type !== 'FLOAT'));
  const inner = `select ${floats.map((c, i) => `${`"${c.name}"`} as f${i}`).join(', ')}, plain,
      ${e.hash(`case when plain then ${short} else ${line(dataset.columns)} end`)} as h
    from (select *, ${plain} as plain from ${e.from}${e.fence}) r${e.fence}`;
  const terms = floats.map(
    (_, i) =>
      `coalesce(sum(${e.xor(`coalesce(${e.scaled(`f${i}`)}, ${FLOAT_NULL})`, e.xor('h', floatMask(i)))}) filter (where plain), 0)`,
  );
  return `select count(*) as rows, coalesce(sum(h), 0) + ${terms.join(' + ')} as digest from (${inner}) d`;
}

/**
 * A query of the count and digest in Postgres of the dataset's rows that `where` (`''` or
 * ` where …` over `dataset.from`) keeps: columns `rows` and `digest`, both text. Exact (numeric
 * sums), order-independent.
 */
export function pgDigestQuery(dataset: ExportDataset, where: string): string {
  const from = `(select ${dataset.columns.map((c) => `${c.sql} as "${c.name}"`).join(', ')} from ${dataset.from}${where}) x`;
  const q = digestSelect(dataset, {
    token: pgToken,
    separator: SEPARATOR_PG,
    hash: (line) => `('x' || left(md5(${line}), 15))::bit(60)::bigint`,
    scaled: (v) => `(${v}::float8 * ${FLOAT_SCALE})::bigint`,
    xor: (a, b) => `(${a} # ${b})`,
    from,
    // Keeps Postgres from folding the subqueries into one and computing h once per use.
    fence: ' offset 0',
  });
  return `select rows::text as rows, digest::text as digest from (${q}) q`;
}

/** The same over a DuckDB relation (`from`) whose columns carry the exported names. */
export function duckDigestQuery(dataset: ExportDataset, from: string): string {
  const q = digestSelect(dataset, {
    token: duckToken,
    separator: 'chr(31)',
    hash: (line) => `('0x' || left(md5(${line}), 15))::BIGINT`,
    // DuckDB computes an aggregate's argument before its FILTER: never an error on the rest.
    scaled: (v) => `TRY_CAST(${v}::DOUBLE * ${FLOAT_SCALE} AS BIGINT)`,
    xor: (a, b) => `xor(${a}, ${b})`,
    from,
    fence: '',
  });
  return `SELECT rows::VARCHAR AS rows, digest::VARCHAR AS digest FROM (${q}) q`;
}

/** DuckDB's `columns={…}` of read_csv for the dataset. */
export function duckCsvColumns(dataset: ExportDataset): string {
  return `{${dataset.columns.map((c) => `'${c.name}': '${c.type}'`).join(', ')}}`;
}
