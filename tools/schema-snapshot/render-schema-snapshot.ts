import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import {
  readSchemaCatalog,
  SNAPSHOT_SCHEMAS,
  type CatalogColumn,
  type CatalogGrant,
  type CatalogRelation,
  type CatalogTableDetail,
  type CatalogType,
  type SchemaCatalog,
} from './read-schema-catalog.js';
import type { Database } from '../../src/warehouse/schema.js';

/** The committed snapshot of a freshly migrated warehouse, next to the migrations that make it. */
export const SCHEMA_SNAPSHOT_FILE = fileURLToPath(
  new URL('../../migrations/schema.snapshot.sql', import.meta.url),
);

/** What regenerates the snapshot; named in the file and in the test's failure message. */
export const SCHEMA_SNAPSHOT_COMMAND = 'npm run schema:snapshot';

/**
 * Describes the schemas `analytics` and `envdata` from the catalogs, as SQL-like text meant for
 * review and diffs (not for running): migrations applied, extensions, types, tables with their
 * columns, constraints, indexes and triggers, yearly partitions summarised, views, functions,
 * grants and comments.
 *
 * Deterministic and the same on PostgreSQL 15 and 16: no OIDs, owners or database names; names
 * schema-qualified whatever the caller's `search_path`; constants printed with fixed output
 * settings; views deparsed so both versions agree (`portableViewDefinition`); everything sorted
 * by code point here rather than by the database's collation. Not `pg_dump`, whose output
 * changes between server versions.
 */
export async function renderSchemaSnapshot(db: Kysely<Database>): Promise<string> {
  const catalog = await db.transaction().execute(async (trx) => {
    // An empty search_path makes every pg_get_*def and format_type qualify names; the rest fix
    // how constants in defaults, checks and views are printed.
    await sql`set local search_path = pg_catalog`.execute(trx);
    await sql`set local timezone = 'UTC'`.execute(trx);
    await sql`set local datestyle = 'ISO, MDY'`.execute(trx);
    await sql`set local intervalstyle = 'postgres'`.execute(trx);
    await sql`set local extra_float_digits = 1`.execute(trx);
    await sql`set local bytea_output = 'hex'`.execute(trx);
    return readSchemaCatalog(trx);
  });
  const lines = render(catalog).map((line) => line.trimEnd());
  return `${lines.join('\n').trim()}\n`;
}

/** Code-point order: the same on every server, whatever its collation. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => byCodePoint(key(a), key(b)));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const DETAIL_ORDER = { constraint: 0, index: 1, trigger: 2 } as const;

function render(catalog: SchemaCatalog): string[] {
  const out: string[] = [
    '-- Schema snapshot of a freshly migrated envdata warehouse (schemas analytics and envdata),',
    '-- described from the PostgreSQL catalogs. Generated: do not edit. After adding a migration,',
    `-- regenerate it with \`${SCHEMA_SNAPSHOT_COMMAND}\` and commit it with the migration;`,
    '-- test/warehouse/schema-snapshot.test.ts fails while it differs. For review, not for running.',
    '',
    '-- Migrations',
    ...sortedBy(catalog.migrations, (m) => m).map((m) => `--   ${m}`),
    '',
  ];
  const grantsOf = grantLines(catalog.grants);
  const commentOn = (kind: string, name: string, comment: string | null) =>
    comment === null ? [] : [`comment on ${kind} ${name} is ${literal(comment)};`];

  out.push(...sortedBy(catalog.extensions, (e) => e).map((e) => `create extension ${e};`));
  for (const schema of SNAPSHOT_SCHEMAS) {
    out.push(`create schema ${schema};`, ...(grantsOf.get(`schema ${schema}`) ?? []));
  }
  out.push(...sortedBy(catalog.defaultPrivileges, (l) => l), '');

  for (const type of sortedBy(catalog.types, (t) => t.name)) {
    out.push(renderType(type), ...(grantsOf.get(`type ${type.name}`) ?? []));
    out.push(...commentOn('type', type.name, type.comment), '');
  }
  for (const sequence of sortedBy(catalog.sequences, (s) => s.name)) {
    const owned = sequence.owned_by === null ? '' : ` owned by ${sequence.owned_by}`;
    out.push(`create sequence ${sequence.name}${owned};`);
    out.push(...(grantsOf.get(`sequence ${sequence.name}`) ?? []), '');
  }

  const partitionsOf = groupBy(
    catalog.relations.filter((r) => r.parent !== null),
    (r) => r.parent ?? '',
  );
  const detailsOf = groupBy(catalog.details, (d) => d.relation);
  const columnsOf = groupBy(catalog.columns, (c) => c.relation);
  const tables = catalog.relations.filter(
    (r) => ['r', 'p', 'f'].includes(r.kind) && r.parent === null,
  );
  for (const table of sortedBy(tables, (t) => t.name)) {
    const columns = columnsOf.get(table.name) ?? [];
    out.push(`create ${table.kind === 'f' ? 'foreign table' : 'table'} ${table.name} (`);
    out.push(...columns.map((c, i) => `  ${renderColumn(c)}${i < columns.length - 1 ? ',' : ''}`));
    const partitionBy = table.partition_key === null ? '' : ` partition by ${table.partition_key}`;
    out.push(`)${partitionBy}${withOptions(table)};`);
    const details = [...(detailsOf.get(table.name) ?? [])].sort(
      (a, b) => DETAIL_ORDER[a.kind] - DETAIL_ORDER[b.kind] || byCodePoint(a.name, b.name),
    );
    out.push(...details.map((d) => d.line));
    out.push(...renderPartitions(table, partitionsOf.get(table.name) ?? [], detailsOf));
    out.push(...(grantsOf.get(`table ${table.name}`) ?? []));
    out.push(...commentOn('table', table.name, table.comment));
    for (const c of columns) out.push(...commentOn('column', `${table.name}.${c.name}`, c.comment));
    out.push('');
  }

  for (const view of sortedBy(catalog.views, (v) => v.name)) {
    const kind = view.kind === 'm' ? 'materialized view' : 'view';
    out.push(`create ${kind} ${view.name}${withOptions(view)} as`, view.definition);
    out.push(...(grantsOf.get(`table ${view.name}`) ?? []));
    out.push(...commentOn(kind, view.name, view.comment));
    for (const c of view.column_comments) {
      out.push(...commentOn('column', `${view.name}.${c.name}`, c.comment));
    }
    out.push('');
  }

  for (const fn of sortedBy(catalog.functions, (f) => `${f.name}(${f.args})`)) {
    const signature = `${fn.name}(${fn.args})`;
    const kind = fn.kind === 'p' ? 'procedure' : 'function';
    out.push(fn.definition === null ? `-- aggregate ${signature}` : `${fn.definition.trim()};`);
    out.push(...(grantsOf.get(`${kind} ${signature}`) ?? []));
    out.push(...commentOn(kind, signature, fn.comment), '');
  }
  return out;
}

function withOptions(relation: CatalogRelation): string {
  return relation.options === null ? '' : ` with (${relation.options.join(', ')})`;
}

function renderType(type: CatalogType): string {
  switch (type.kind) {
    case 'e':
      return `create type ${type.name} as enum (${(type.labels ?? []).map(literal).join(', ')});`;
    case 'd':
      return [
        `create domain ${type.name} as ${type.base_type ?? ''}`,
        type.not_null ? ' not null' : '',
        type.default_expr === null ? '' : ` default ${type.default_expr}`,
        ...(type.checks ?? []).map((check) => ` ${check}`),
        ';',
      ].join('');
    case 'c':
      return `create type ${type.name} as (${(type.attributes ?? []).join(', ')});`;
    default:
      return `-- type ${type.name}: ${type.kind === 'r' ? 'range' : 'multirange'}`;
  }
}

function renderColumn(c: CatalogColumn): string {
  const parts = [`${c.name} ${c.type}`];
  if (c.collation !== null) parts.push(`collate ${c.collation}`);
  if (c.not_null) parts.push('not null');
  if (c.identity === 'a') parts.push('generated always as identity');
  else if (c.identity === 'd') parts.push('generated by default as identity');
  else if (c.generated === 's') parts.push(`generated always as (${c.default_expr ?? ''}) stored`);
  else if (c.default_expr !== null) parts.push(`default ${c.default_expr}`);
  return parts.join(' ');
}

/**
 * Partitions in a few comment lines instead of a table each: the yearly ones as a range of
 * years with the bound they all follow, any other verbatim, then what partitions have of their
 * own (indexes, constraints, triggers), with the partition's name written `{partition}`.
 */
function renderPartitions(
  parent: CatalogRelation,
  partitions: readonly CatalogRelation[],
  detailsOf: ReadonlyMap<string, readonly CatalogTableDetail[]>,
): string[] {
  if (partitions.length === 0) return [];
  const out = [`-- ${partitions.length} partition(s) of ${parent.name}:`];
  const yearly = new Map<string, number>();
  for (const p of sortedBy(partitions, (r) => r.name)) {
    const year = yearOf(parent.name, p);
    if (year === undefined) out.push(`--   ${p.name} ${p.partition_bound ?? ''}`);
    else yearly.set(p.name, year);
  }
  if (yearly.size > 0) {
    const years = yearRanges([...yearly.values()].sort((a, b) => a - b));
    out.push(
      `--   ${parent.name}_y{${years}} FOR VALUES FROM ('{year}-01-01 00:00:00+00') TO ('{year + 1}-01-01 00:00:00+00')`,
    );
  }
  const holders = new Map<string, string[]>();
  for (const p of partitions) {
    const bare = p.name.slice(p.name.lastIndexOf('.') + 1);
    for (const d of detailsOf.get(p.name) ?? []) {
      if (!d.own) continue;
      const line = d.line.split(bare).join('{partition}');
      holders.set(line, [...(holders.get(line) ?? []), p.name]);
    }
  }
  for (const [line, names] of sortedBy([...holders], ([l]) => l)) {
    const which =
      names.length === partitions.length ? 'each' : sortedBy(names, (n) => n).join(', ');
    out.push(`--   ${which}: ${line}`);
  }
  return out;
}

/** The year of a partition named `PARENT_yYYYY` whose bound is exactly that UTC year. */
function yearOf(parentName: string, partition: CatalogRelation): number | undefined {
  const match = /_y(\d{4})$/.exec(partition.name);
  if (!match || partition.name !== `${parentName}_y${match[1]}`) return undefined;
  const year = Number(match[1]);
  const bound = `FOR VALUES FROM ('${year}-01-01 00:00:00+00') TO ('${year + 1}-01-01 00:00:00+00')`;
  return partition.partition_bound === bound ? year : undefined;
}

/** `1990..2030` for consecutive years, `2016..2020,2025` otherwise. */
function yearRanges(years: readonly number[]): string {
  const ranges: string[] = [];
  let start = years[0]!;
  let previous = start;
  for (const year of [...years.slice(1), Number.NaN]) {
    if (year === previous + 1) {
      previous = year;
      continue;
    }
    ranges.push(start === previous ? `${start}` : `${start}..${previous}`);
    start = year;
    previous = year;
  }
  return ranges.join(',');
}

function grantLines(grants: readonly CatalogGrant[]): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  for (const g of sortedBy(grants, (r) => `${r.object} ${r.grantee} ${r.grantable}`)) {
    const option = g.grantable ? ' with grant option' : '';
    const line = `grant ${g.privileges} on ${g.object} to ${g.grantee}${option};`;
    lines.set(g.object, [...(lines.get(g.object) ?? []), line]);
  }
  return lines;
}
