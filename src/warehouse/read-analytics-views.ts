import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A view of schema `analytics` as its catalog describes it: names unquoted, comments as set. */
export interface AnalyticsView {
  readonly name: string;
  readonly comment: string | null;
  /** Every column, in column order, commented or not. */
  readonly columns: readonly { readonly name: string; readonly comment: string | null }[];
}

/** The description of schema `analytics` and of its views and their columns, by view name. */
export interface AnalyticsCatalog {
  readonly comment: string | null;
  readonly views: readonly AnalyticsView[];
}

/**
 * Reads the views of schema `analytics` and their comments (`obj_description`,
 * `col_description`) from the live catalog, so that what is documented in the database is what
 * a consumer is told. `readSchemaCatalog` keeps only commented view columns, quoted and
 * schema-qualified, for the snapshot; a consumer needs every column by its plain name.
 */
export async function readAnalyticsViews(db: Kysely<Database>): Promise<AnalyticsCatalog> {
  const schema = await sql<{ comment: string | null }>`
    select obj_description('analytics'::regnamespace, 'pg_namespace') as comment`.execute(db);
  const { rows } = await sql<{
    view: string;
    view_comment: string | null;
    column: string;
    column_comment: string | null;
  }>`
    select c.relname::text as view, obj_description(c.oid, 'pg_class') as view_comment,
      a.attname::text as column, col_description(c.oid, a.attnum) as column_comment
    from pg_class c
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where c.relnamespace = 'analytics'::regnamespace and c.relkind in ('v', 'm')
    order by c.relname collate "C", a.attnum`.execute(db);
  const views = new Map<string, AnalyticsView & { columns: AnalyticsView['columns'][number][] }>();
  for (const row of rows) {
    let view = views.get(row.view);
    if (!view) {
      view = { name: row.view, comment: row.view_comment, columns: [] };
      views.set(row.view, view);
    }
    view.columns.push({ name: row.column, comment: row.column_comment });
  }
  return { comment: schema.rows[0]?.comment ?? null, views: [...views.values()] };
}
