import { sql, type Transaction } from 'kysely';
import { portableViewDefinition } from './portable-view-definition.js';
import type { Database } from '../../src/warehouse/schema.js';

/** The schemas migrations own: the BI views and the warehouse. */
export const SNAPSHOT_SCHEMAS = ['analytics', 'envdata'] as const;

export interface CatalogRelation {
  /** Schema-qualified, quoted where needed, like every name here. */
  readonly name: string;
  /** `pg_class.relkind`: r table, p partitioned table, v view, m materialized view, f foreign. */
  readonly kind: string;
  /** The partitioned table this one is a partition of. */
  readonly parent: string | null;
  readonly partition_key: string | null;
  readonly partition_bound: string | null;
  readonly options: string[] | null;
  readonly comment: string | null;
}

export interface CatalogView extends CatalogRelation {
  readonly definition: string;
  /** The view's commented columns, in column order (a BI tool shows them). */
  readonly column_comments: readonly { readonly name: string; readonly comment: string }[];
}

export interface CatalogColumn {
  readonly relation: string;
  readonly name: string;
  readonly type: string;
  readonly not_null: boolean;
  readonly default_expr: string | null;
  /** `a` always, `d` by default, empty when not an identity column. */
  readonly identity: string;
  /** `s` for a stored generated column (its expression in `default_expr`). */
  readonly generated: string;
  readonly collation: string | null;
  readonly comment: string | null;
}

/** A constraint, index or trigger of a table, as one SQL statement. */
export interface CatalogTableDetail {
  readonly relation: string;
  readonly kind: 'constraint' | 'index' | 'trigger';
  readonly name: string;
  readonly line: string;
  /** Made for this table itself, not inherited or cloned from a partitioned parent. */
  readonly own: boolean;
}

export interface CatalogType {
  readonly name: string;
  /** `pg_type.typtype`: e enum, d domain, c composite, r range, m multirange. */
  readonly kind: string;
  readonly labels: string[] | null;
  readonly base_type: string | null;
  readonly not_null: boolean;
  readonly default_expr: string | null;
  readonly checks: string[] | null;
  readonly attributes: string[] | null;
  readonly comment: string | null;
}

export interface CatalogFunction {
  readonly name: string;
  readonly args: string;
  /** `pg_proc.prokind`: f function, p procedure, a aggregate, w window. */
  readonly kind: string;
  readonly definition: string | null;
  readonly comment: string | null;
}

export interface CatalogGrant {
  /** `table envdata.chunk`, `schema analytics`, `function envdata.f(integer)`, … */
  readonly object: string;
  readonly grantee: string;
  readonly privileges: string;
  readonly grantable: boolean;
}

export interface CatalogSequence {
  readonly name: string;
  readonly owned_by: string | null;
}

/** What the schema snapshot describes, read from the catalogs. */
export interface SchemaCatalog {
  readonly migrations: string[];
  readonly extensions: string[];
  readonly types: CatalogType[];
  readonly sequences: CatalogSequence[];
  readonly relations: CatalogRelation[];
  readonly views: CatalogView[];
  readonly columns: CatalogColumn[];
  readonly details: CatalogTableDetail[];
  readonly functions: CatalogFunction[];
  readonly grants: CatalogGrant[];
  readonly defaultPrivileges: string[];
}

const inSchemas = (column: string) =>
  sql`${sql.ref(column)} in (${sql.join(SNAPSHOT_SCHEMAS.map((s) => sql.lit(s)))})`;

/**
 * Reads the schemas migrations own from the catalogs, in `trx`, which must have set
 * `search_path = pg_catalog` (so that every deparsed name comes out schema-qualified) and the
 * output settings the text depends on. Rows come in no particular order: the renderer sorts.
 */
export async function readSchemaCatalog(trx: Transaction<Database>): Promise<SchemaCatalog> {
  const migrations = await sql<{ name: string }>`
    select name from public.envdata_migration`.execute(trx);
  const extensions = await sql<{ name: string }>`
    select quote_ident(extname) as name from pg_extension where extname <> 'plpgsql'`.execute(trx);
  const types = await sql<CatalogType>`
    select format('%I.%I', n.nspname, t.typname) as name, t.typtype::text as kind,
      (select array_agg(e.enumlabel::text order by e.enumsortorder)
        from pg_enum e where e.enumtypid = t.oid) as labels,
      case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end as base_type,
      t.typnotnull as not_null, t.typdefault as default_expr,
      (select array_agg(pg_get_constraintdef(c.oid, true) order by c.conname)
        from pg_constraint c where c.contypid = t.oid) as checks,
      (select array_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod))
          order by a.attnum)
        from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0
          and not a.attisdropped) as attributes,
      obj_description(t.oid, 'pg_type') as comment
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where ${inSchemas('n.nspname')} and t.typtype in ('e', 'd', 'c', 'r', 'm')
      and (t.typtype <> 'c' or exists (
        select 1 from pg_class r where r.oid = t.typrelid and r.relkind = 'c'))`.execute(trx);
  const sequences = await sql<CatalogSequence>`
    select format('%I.%I', n.nspname, s.relname) as name,
      (select format('%I.%I.%I', tn.nspname, t.relname, a.attname)
        from pg_depend d join pg_class t on t.oid = d.refobjid
        join pg_namespace tn on tn.oid = t.relnamespace
        join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
        where d.classid = 'pg_class'::regclass and d.objid = s.oid and d.deptype = 'a') as owned_by
    from pg_class s join pg_namespace n on n.oid = s.relnamespace
    where ${inSchemas('n.nspname')} and s.relkind = 'S'
      -- an identity column states its own sequence
      and not exists (select 1 from pg_depend d
        where d.classid = 'pg_class'::regclass and d.objid = s.oid and d.deptype = 'i')`.execute(
    trx,
  );
  const relations = await sql<CatalogRelation>`
    select format('%I.%I', n.nspname, c.relname) as name, c.relkind::text as kind,
      (select format('%I.%I', pn.nspname, p.relname) from pg_inherits i
        join pg_class p on p.oid = i.inhparent join pg_namespace pn on pn.oid = p.relnamespace
        where i.inhrelid = c.oid and c.relispartition) as parent,
      case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partition_key,
      case when c.relispartition then pg_get_expr(c.relpartbound, c.oid) end as partition_bound,
      c.reloptions::text[] as options,
      obj_description(c.oid, 'pg_class') as comment
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${inSchemas('n.nspname')} and c.relkind in ('r', 'p', 'v', 'm', 'f')`.execute(trx);
  const viewColumnComments = await sql<{ relation: string; name: string; comment: string }>`
    select format('%I.%I', n.nspname, c.relname) as relation, quote_ident(a.attname) as name,
      col_description(c.oid, a.attnum) as comment
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    where ${inSchemas('n.nspname')} and c.relkind in ('v', 'm') and a.attnum > 0
      and not a.attisdropped and col_description(c.oid, a.attnum) is not null
    order by a.attrelid, a.attnum`.execute(trx);
  const views: CatalogView[] = [];
  for (const relation of relations.rows) {
    if (relation.kind !== 'v' && relation.kind !== 'm') continue;
    views.push({
      ...relation,
      definition: await portableViewDefinition(trx, relation.name),
      column_comments: viewColumnComments.rows
        .filter((c) => c.relation === relation.name)
        .map(({ name, comment }) => ({ name, comment })),
    });
  }
  const columns = await sql<CatalogColumn>`
    select format('%I.%I', n.nspname, c.relname) as relation, quote_ident(a.attname) as name,
      format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
      pg_get_expr(d.adbin, d.adrelid) as default_expr, a.attidentity::text as identity,
      a.attgenerated::text as generated,
      case when a.attcollation <> t.typcollation then (
        select format('%I.%I', cn.nspname, co.collname) from pg_collation co
        join pg_namespace cn on cn.oid = co.collnamespace where co.oid = a.attcollation)
      end as collation,
      col_description(c.oid, a.attnum) as comment
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_type t on t.oid = a.atttypid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where ${inSchemas('n.nspname')} and c.relkind in ('r', 'p', 'f') and not c.relispartition
      and a.attnum > 0 and not a.attisdropped
    order by a.attrelid, a.attnum`.execute(trx);
  const details = await sql<CatalogTableDetail>`
    -- constraints; not-null ones are stated by their column (PostgreSQL 18 lists them here too)
    select format('%I.%I', n.nspname, c.relname) as relation, 'constraint' as kind,
      co.conname::text as name,
      format('alter table %I.%I add constraint %I %s;', n.nspname, c.relname, co.conname,
        pg_get_constraintdef(co.oid, true)) as line,
      co.conislocal and co.conparentid = 0 as own
    from pg_constraint co join pg_class c on c.oid = co.conrelid
    join pg_namespace n on n.oid = c.relnamespace
    where ${inSchemas('n.nspname')} and co.contype <> 'n'
    union all
    -- indexes, but those a primary key, unique or exclusion constraint states
    select format('%I.%I', n.nspname, c.relname), 'index', i.relname::text,
      pg_get_indexdef(i.oid) || ';',
      not exists (select 1 from pg_inherits h where h.inhrelid = i.oid)
    from pg_index x join pg_class i on i.oid = x.indexrelid
    join pg_class c on c.oid = x.indrelid join pg_namespace n on n.oid = c.relnamespace
    where ${inSchemas('n.nspname')} and not exists (select 1 from pg_constraint co
      where co.conindid = i.oid and co.conrelid = c.oid and co.contype in ('p', 'u', 'x'))
    union all
    select format('%I.%I', n.nspname, c.relname), 'trigger', tg.tgname::text,
      pg_get_triggerdef(tg.oid, true) || ';', tg.tgparentid = 0
    from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
    join pg_namespace n on n.oid = c.relnamespace
    where ${inSchemas('n.nspname')} and not tg.tgisinternal`.execute(trx);
  const functions = await sql<CatalogFunction>`
    select format('%I.%I', n.nspname, p.proname) as name,
      pg_get_function_identity_arguments(p.oid) as args, p.prokind::text as kind,
      case when p.prokind in ('f', 'p') then pg_get_functiondef(p.oid) end as definition,
      obj_description(p.oid, 'pg_proc') as comment
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where ${inSchemas('n.nspname')}
      and not exists (select 1 from pg_depend d
        where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`.execute(
    trx,
  );
  const grants = await sql<CatalogGrant>`
    with acl as (
      select format('schema %I', n.nspname) as object, n.nspowner as owner, n.nspacl as acl
      from pg_namespace n where ${inSchemas('n.nspname')}
      union all
      select format('%s %I.%I', case c.relkind when 'S' then 'sequence' else 'table' end,
        n.nspname, c.relname), c.relowner, c.relacl
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where ${inSchemas('n.nspname')} and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      union all
      select format('%s %I.%I(%s)', case p.prokind when 'p' then 'procedure' else 'function' end,
        n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)), p.proowner, p.proacl
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where ${inSchemas('n.nspname')}
      union all
      select format('type %I.%I', n.nspname, t.typname), t.typowner, t.typacl
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where ${inSchemas('n.nspname')}
    )
    select acl.object,
      case when e.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(e.grantee)) end
        as grantee,
      string_agg(e.privilege_type, ', ' order by e.privilege_type collate "C") as privileges,
      e.is_grantable as grantable
    from acl cross join lateral aclexplode(acl.acl) e
    -- the owner's own privileges say who ran the migrations, which differs by installation
    where e.grantee <> acl.owner
    group by acl.object, e.grantee, e.is_grantable`.execute(trx);
  const defaultPrivileges = await sql<{ line: string }>`
    select format('-- default privileges in schema %I: %s on %s to %s', n.nspname,
      string_agg(e.privilege_type, ', ' order by e.privilege_type collate "C"),
      case a.defaclobjtype when 'r' then 'tables' when 'S' then 'sequences'
        when 'f' then 'functions' when 'T' then 'types' else 'schemas' end,
      case when e.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(e.grantee)) end)
      as line
    from pg_default_acl a join pg_namespace n on n.oid = a.defaclnamespace
    cross join lateral aclexplode(a.defaclacl) e
    where ${inSchemas('n.nspname')} and e.grantee <> a.defaclrole
    group by n.nspname, a.defaclobjtype, e.grantee`.execute(trx);
  return {
    migrations: migrations.rows.map((r) => r.name),
    extensions: extensions.rows.map((r) => r.name),
    types: types.rows,
    sequences: sequences.rows,
    relations: relations.rows,
    views,
    columns: columns.rows,
    details: details.rows,
    functions: functions.rows,
    grants: grants.rows,
    defaultPrivileges: defaultPrivileges.rows.map((r) => r.line),
  };
}
