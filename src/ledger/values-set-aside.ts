import { sql, type Kysely, type Transaction } from 'kysely';
import {
  SET_ASIDE_LIST,
  SET_ASIDE_REASONS,
  type SetAsideKind,
} from '../normalize/set-aside-reason.js';
import type { Database } from '../warehouse/schema.js';

/**
 * Values set aside of one kind from one source (`weather_history`, `weather_latest`, …), as the
 * ledger holds them now (`envdata.quarantine`, reasons of `SET_ASIDE_REASONS`): counted exactly,
 * on any host. A rebuild or an accepted shape that fills them removes their rows.
 */
export interface SetAsideGroup {
  readonly kind: SetAsideKind;
  /** What answered them: `weather_history`, or a snapshot (`weather_latest`, …). */
  readonly source: string;
  /** Records with values set aside. */
  readonly records: number;
  /** Hours (location and hour) with values set aside. */
  readonly hours: number;
  /**
   * Values set aside, by field (`{ humidity: 48, cloudCover: 30 }`); `{}` for a held shape,
   * whose records are held whole.
   */
  readonly fields: Readonly<Record<string, number>>;
  /** What fills them, for people: ``envdata rebuild --dataset weather``. */
  readonly command: string;
  /** When to run `command`. */
  readonly when: string;
}

/** The values set aside in `groups`: a held record counts as one. */
export function valuesOf(group: SetAsideGroup): number {
  const named = Object.values(group.fields).reduce((a, b) => a + b, 0);
  return named > 0 ? named : group.records;
}

/**
 * What fills values of `kind` from `source`, and when to run it; `shapes`: the shapes whose
 * answers are held (`upstreamShapeHeld`).
 */
function remedy(
  kind: SetAsideKind,
  source: string,
  shapes: readonly string[],
): Pick<SetAsideGroup, 'command' | 'when'> {
  const dataset = source.split('_')[0] ?? source;
  if (kind === 'upstreamShapeHeld') {
    return {
      command: `envdata upstream accept ${shapes.join(' ')}`,
      when: `once the new ${dataset} shape${shapes.length > 1 ? 's' : ''} listed by \`envdata upstream\` ${shapes.length > 1 ? 'are' : 'is'} right`,
    };
  }
  // The worker fills shares of history from the archive itself once an answer tells the unit
  // (`fillSetAsideShares`): a person has something to do only if some stay after that.
  if (source.endsWith('_history')) {
    return {
      command: `envdata rebuild --dataset ${dataset}`,
      when: `the worker fills them from the archive once a later ${dataset} answer tells the unit; if some stay after one has`,
    };
  }
  // A latest reading or a forecast is not archived: the next sync stores a new one, and the
  // first answer of its product that tells the unit fills the stored ones
  // (`fillSnapshotSetAside`).
  return {
    command: 'envdata sync --now',
    when: 'for a new reading (one that tells the unit fills the stored ones)',
  };
}

/**
 * The values set aside in the ledger, by kind and source: of the runs `runIds`, or of the whole
 * warehouse when `runIds` is `undefined` (entries a rebuild wrote have no run). Largest first.
 */
export async function valuesSetAside(
  db: Kysely<Database> | Transaction<Database>,
  runIds?: readonly number[],
): Promise<SetAsideGroup[]> {
  const share = SET_ASIDE_REASONS.shareUnitUnknown;
  const held = SET_ASIDE_REASONS.upstreamShapeHeld;
  // A share reason lists `field value` items between its prefix and SET_ASIDE_LIST.end.
  const { rows } = await sql<{
    kind: SetAsideKind;
    source: string;
    records: number;
    hours: number;
    fields: Record<string, number> | null;
    shapes: string[] | null;
  }>`
    with q as (
      select q.source, q.location_id, q.observed_at,
        case when starts_with(q.reason, ${share}) then 'shareUnitUnknown'
          else 'upstreamShapeHeld' end as kind,
        case when starts_with(q.reason, ${share}) then
          substr(q.reason, length(${share}) + 2,
            strpos(q.reason, ${SET_ASIDE_LIST.end}) - length(${share}) - 2) end as list,
        case when starts_with(q.reason, ${held}) then
          substr(q.reason, length(${held}) + 2, 12) end as shape
      from envdata.quarantine q
      where (starts_with(q.reason, ${share}) or starts_with(q.reason, ${held}))
        ${runIds === undefined ? sql`` : sql`and q.run_id = any(${[...runIds]}::int[])`}
    ), fields as (
      select q.kind, q.source, split_part(v.item, ' ', 1) as field, count(*)::int as n
      from q cross join lateral regexp_split_to_table(q.list, ${SET_ASIDE_LIST.separator}) as v(item)
      where q.list is not null and q.list <> ''
      group by 1, 2, 3
    )
    select g.kind, g.source, count(*)::int as records,
      count(distinct (g.location_id, g.observed_at))::int as hours,
      (select json_object_agg(f.field, f.n order by f.n desc, f.field) from fields f
        where f.kind = g.kind and f.source = g.source) as fields,
      array_agg(distinct g.shape order by g.shape) filter (where g.shape is not null) as shapes
    from q g
    group by g.kind, g.source
    order by records desc, g.kind, g.source`.execute(db);
  return rows.map((r) => ({
    kind: r.kind,
    source: r.source,
    records: r.records,
    hours: r.hours,
    fields: r.fields ?? {},
    ...remedy(r.kind, r.source, r.shapes ?? []),
  }));
}

/**
 * One line for people: how many values in how many hours, which fields and why, and what to
 * run. `''` when nothing is set aside.
 */
export function formatValuesSetAside(groups: readonly SetAsideGroup[]): string {
  if (groups.length === 0) return '';
  const values = groups.reduce((n, g) => n + valuesOf(g), 0);
  const hours = groups.reduce((n, g) => n + g.hours, 0);
  const parts = groups.map((g) => {
    const why = g.kind === 'shareUnitUnknown' ? 'share unit unknown' : 'upstream shape held';
    const fields = Object.entries(g.fields)
      .map(([field, n]) => `${field} ${n}`)
      .join(', ');
    return `${g.source} ${fields === '' ? `${g.records} record(s)` : fields} (${why}): ${g.when}, run \`${g.command}\``;
  });
  return `${values} value(s) in ${hours} hour(s) set aside, not in the warehouse — ${parts.join('; ')}`;
}
