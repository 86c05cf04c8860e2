import { sql, type Transaction } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

const PROBE = 'envdata_snapshot_view';
const HEAD = ' WITH q AS (';
const TAIL = [' SELECT 1 AS "?column?"', '   FROM q;'];

/**
 * `pg_get_viewdef(view, true)` as PostgreSQL 15 and 16 both print it.
 *
 * They differ on a view that reads one relation: PostgreSQL 16 no longer keeps the OLD/NEW
 * placeholders in a view's range table, so its top level prints `SELECT location_id` where 15
 * prints `SELECT location.location_id`. Inside a CTE both always qualify. So the definition is
 * wrapped as the CTE of a temporary view (`WITH q AS (…) SELECT 1 FROM q`), deparsed again, and
 * unwrapped: the same text on either version. Falls back to the plain definition should the
 * wrapper not come back as expected (the snapshot test then shows it).
 */
export async function portableViewDefinition(
  trx: Transaction<Database>,
  view: string,
): Promise<string> {
  const { rows } = await sql<{ definition: string }>`
    select pg_get_viewdef(${view}::regclass, true) as definition`.execute(trx);
  const plain = rows[0]!.definition;
  const body = plain.trimEnd().replace(/;$/, '');
  await sql
    .raw(`create temporary view ${PROBE} as with q as (${body}) select 1 from q`)
    .execute(trx);
  try {
    const wrapped = await sql<{ definition: string }>`
      select pg_get_viewdef(${`pg_temp.${PROBE}`}::regclass, true) as definition`.execute(trx);
    return unwrap(wrapped.rows[0]!.definition) ?? plain;
  } finally {
    await sql.raw(`drop view pg_temp.${PROBE}`).execute(trx);
  }
}

function unwrap(wrapped: string): string | undefined {
  const lines = wrapped.trimEnd().split('\n');
  const tail = lines.slice(-TAIL.length);
  const close = lines[lines.length - TAIL.length - 1];
  if (lines[0] !== HEAD || close?.trim() !== ')' || tail.join('\n') !== TAIL.join('\n')) {
    return undefined;
  }
  const inner = lines.slice(1, -TAIL.length - 1);
  // Indented as pg_get_viewdef indents a view: one space before the first SELECT (or WITH).
  const shift = /^ */.exec(inner[0] ?? '')![0].length - 1;
  return `${inner.map((l) => (l.startsWith(' '.repeat(shift)) ? l.slice(shift) : l.trimStart())).join('\n')};`;
}
