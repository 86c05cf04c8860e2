import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type {
  AnalyticsColumn,
  AnalyticsView,
} from './2026_11_27_0034_analytics_column_comments.js';
import { ANALYTICS_COLUMNS as BEFORE } from './2026_11_28_0047_one_definition_of_fresh.js';

/**
 * Provenance (issue 40): every answer kept once, every value traced to the answer that set it,
 * every revision kept.
 *
 * - `envdata.answer_body`: each body the archive keeps, once per SHA-256 (gzip).
 * - `envdata.answer`: each answer that landed anything — chunk, run, location, dataset, window,
 *   endpoint, status, when it was fetched and when it landed (`landed_at`, the landing
 *   transaction's start) — and its body's SHA-256, kept when the body is not (archive off, or
 *   past retention). Ids come from `answer_id_seq` in blocks of 64 (a writer takes a block per
 *   call to `nextval`), so a landing's rows can carry its answer before its transaction.
 * - Each fact table gains `answer_id`: the answer that last set the row's values (a re-landing
 *   of identical values leaves it). Rows landed before this migration have none; the source
 *   views trace them to the newest archived answer of their hour's window.
 * - `envdata.<fact>_revision`: the values a landing replaced, with their source answer, their
 *   validity (`valid_from`: when they landed, null when before this migration; `valid_to`: when
 *   they were replaced) and the answer and run that replaced them.
 * - `envdata.raw_payload` becomes a view: each chunk's newest archived answer, as before.
 * - BI: `analytics.answers`, `analytics.<fact>_source`, `analytics.<fact>_revisions` and
 *   `analytics.<fact>_as_of(timestamptz)`.
 *
 * Frozen in time: plain SQL, no app imports.
 */

/** The weather columns as analytics.weather_hourly shows them (migration 0034's expressions). */
function weatherValues(w: string): string {
  const r2 = (c: string, as = c) =>
    `round(${w}.${c}::double precision * 100::double precision) / 100::double precision as ${as}`;
  const pct = (c: string, as: string) =>
    `round(${w}.${c}::double precision * 10000::double precision) / 100::double precision as ${as}`;
  return [
    r2('temperature_c'),
    r2('apparent_temperature_c'),
    r2('dew_point_c'),
    pct('humidity_fraction', 'humidity_pct'),
    r2('pressure_hpa'),
    r2('wind_speed_ms'),
    r2('wind_gust_ms'),
    r2('wind_bearing_deg'),
    pct('cloud_cover_fraction', 'cloud_cover_pct'),
    r2('visibility_km'),
    r2('uv_index'),
    r2('ozone_du'),
    r2('precip_intensity_mm_h'),
    pct('precip_probability_fraction', 'precip_probability_pct'),
    `${w}.precip_type`,
    `${w}.summary`,
    `${w}.icon::text as icon`,
  ].join(',\n      ');
}

const WEATHER_COLUMNS = [
  'temperature_c real',
  'apparent_temperature_c real',
  'dew_point_c real',
  'humidity_fraction real',
  'pressure_hpa real',
  'wind_speed_ms real',
  'wind_gust_ms real',
  'wind_bearing_deg real',
  'cloud_cover_fraction real',
  'visibility_km real',
  'uv_index real',
  'ozone_du real',
  'precip_intensity_mm_h real',
  'precip_probability_fraction real',
  'precip_type text',
  'summary text',
  'icon envdata.weather_icon',
  'icon_raw text',
];

interface Fact {
  readonly table: 'weather_hourly' | 'pollen_hourly' | 'pollen_species_hourly';
  readonly dataset: 'weather' | 'pollen';
  /** Key and value columns after location_id, observed_at, with their types. */
  readonly columns: readonly string[];
  /** Key columns after location_id, observed_at. */
  readonly key: readonly string[];
  /** The analytics view's columns after location_id, location_name, observed_at, over alias `f`. */
  readonly shown: string;
  /** Joins the analytics view needs beyond envdata.location `l` (alias `f` for the facts). */
  readonly joins: string;
  /** The analytics view's key columns after location_id, observed_at, over alias `f`. */
  readonly shownKey: string;
}

const FACTS: readonly Fact[] = [
  {
    table: 'weather_hourly',
    dataset: 'weather',
    columns: WEATHER_COLUMNS,
    key: [],
    shown: weatherValues('f'),
    joins: '',
    shownKey: '',
  },
  {
    table: 'pollen_hourly',
    dataset: 'pollen',
    columns: ['pollen_type envdata.pollen_type', 'count integer', 'risk_level envdata.risk_level'],
    key: ['pollen_type'],
    shown: `f.pollen_type::text as pollen_type, f.count, f.risk_level::text as risk_level`,
    joins: '',
    shownKey: 'f.pollen_type::text as pollen_type,',
  },
  {
    table: 'pollen_species_hourly',
    dataset: 'pollen',
    columns: ['species_id smallint', 'count integer', 'risk_level envdata.risk_level'],
    key: ['species_id'],
    shown: `s.category::text as category, s.name as species, f.count, f.risk_level::text as risk_level`,
    joins: 'join envdata.pollen_species s using (species_id)',
    shownKey: 's.category::text as category, s.name as species,',
  },
];

const column = (
  name: string,
  type: string,
  nullable: boolean,
  meaning: string,
): AnalyticsColumn => ({ name, type, nullable, meaning });

const ANSWER_SHA256 =
  "SHA-256 of the answer's body exactly as received, hex: the same as sha256sum of the archived body, gunzipped";

const ANSWERS: AnalyticsView = {
  view: 'analytics.answers',
  columns: [
    column(
      'answer_id',
      'bigint',
      false,
      'key of the answer (the source columns of the facts name it)',
    ),
    column(
      'location_id',
      'integer',
      false,
      'key of the location in every analytics view (analytics.locations)',
    ),
    column('dataset', 'text', false, 'weather or pollen'),
    column('window_from', 'timestamptz', false, 'first hour asked for, UTC'),
    column('window_to', 'timestamptz', false, 'end of the hours asked for (exclusive), UTC'),
    column(
      'endpoint',
      'text',
      true,
      'the service endpoint path that answered (no query); null for answers archived before migration 0051',
    ),
    column(
      'http_status',
      'smallint',
      false,
      'HTTP status of the answer: 200, or 206 for an answer trimmed by the quota',
    ),
    column('fetched_at', 'timestamptz', false, 'when envdata received the answer, UTC'),
    column(
      'landed_at',
      'timestamptz',
      false,
      'when its landing transaction began, UTC: the instant analytics.*_as_of counts it from',
    ),
    column(
      'run_id',
      'integer',
      true,
      'the run that fetched it (envdata status RUN); null for a rebuild from the archive',
    ),
    column('answer_sha256', 'text', false, ANSWER_SHA256),
    column(
      'body_bytes',
      'integer',
      true,
      'size of the body as received, bytes; null when the archive no longer keeps it',
    ),
    column(
      'body_archived',
      'boolean',
      false,
      'whether the archive keeps the body (ENVDATA_ARCHIVE_RAW; ENVDATA_ARCHIVE_RETENTION_DAYS drops older ones)',
    ),
  ],
};

function viewOf(name: string): AnalyticsView {
  const view = BEFORE.find((v) => v.view === name);
  if (!view) throw new Error(`no view ${name} before 0051`);
  return view;
}

/** The source view of `fact`: the fact's key, then where its values came from. */
function sourceView(fact: Fact): AnalyticsView {
  const shown = viewOf(`analytics.${fact.table}`).columns;
  const key = shown.filter(
    (c) =>
      c.name === 'location_id' ||
      c.name === 'observed_at' ||
      fact.shownKey.includes(` as ${c.name}`),
  );
  return {
    view: `analytics.${fact.table}_source`,
    columns: [
      ...key,
      column(
        'answer_id',
        'bigint',
        true,
        "the answer that last set the row's values (analytics.answers)",
      ),
      column('answer_sha256', 'text', true, ANSWER_SHA256),
      column('fetched_at', 'timestamptz', true, 'when envdata received that answer, UTC'),
      column('landed_at', 'timestamptz', true, "when that answer's values landed, UTC"),
      column(
        'run_id',
        'integer',
        true,
        'the run that fetched it; null for a rebuild from the archive',
      ),
      column('endpoint', 'text', true, 'the service endpoint path that answered (no query)'),
      column('http_status', 'smallint', true, 'HTTP status of that answer'),
      column(
        'traced_by_window',
        'boolean',
        false,
        'the row landed before envdata kept per-row sources (migration 0051): traced to the newest archived answer of its window',
      ),
    ],
  };
}

/** The revisions view of `fact`: the fact view's columns, then their validity and who replaced them. */
function revisionsView(fact: Fact): AnalyticsView {
  return {
    view: `analytics.${fact.table}_revisions`,
    columns: [
      ...viewOf(`analytics.${fact.table}`).columns,
      column(
        'valid_from',
        'timestamptz',
        true,
        'when these values landed, UTC; null: before envdata kept revisions (migration 0051)',
      ),
      column(
        'valid_to',
        'timestamptz',
        false,
        "when a later answer replaced them, UTC (its landing transaction's start)",
      ),
      column(
        'answer_id',
        'bigint',
        true,
        'the answer that had set these values (analytics.answers)',
      ),
      column(
        'replaced_by_answer',
        'bigint',
        true,
        'the answer whose values replaced them (analytics.answers)',
      ),
      column(
        'replaced_by_run',
        'integer',
        true,
        'the run that landed the replacing answer; null for a rebuild',
      ),
    ],
  };
}

/**
 * The meaning of every column of every `analytics` view once this migration ran (see
 * tools/warehouse-doc/analytics-columns.ts): 0047's, with the answers, source and revisions views.
 */
export const ANALYTICS_COLUMNS: readonly AnalyticsView[] = [
  ...BEFORE,
  ANSWERS,
  ...FACTS.map(sourceView),
  ...FACTS.map(revisionsView),
];

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function commentColumns(view: AnalyticsView): string {
  return view.columns
    .map(({ name, meaning }) => `comment on column ${view.view}.${name} is ${literal(meaning)};`)
    .join('\n');
}

/** The fact's key and value columns after location_id, observed_at, each after `prefix`. */
function columnNames(fact: Fact, prefix = ''): string {
  return fact.columns.map((c) => `${prefix}${c.split(' ')[0]}`).join(', ');
}

/**
 * The source view's key columns (`location_id, observed_at, …`): what joins it to the fact view.
 * The `as_of` functions read only `analytics` views, as the BI role may (a function runs with
 * its caller's rights; a view with its owner's).
 */
function sourceKey(fact: Fact): string {
  return sourceView(fact)
    .columns.slice(
      0,
      sourceView(fact).columns.findIndex((c) => c.name === 'answer_id'),
    )
    .map((c) => c.name)
    .join(', ');
}

/** The fact view's column names, in order, over alias `r`. */
function shownNames(fact: Fact): string {
  return viewOf(`analytics.${fact.table}`)
    .columns.map((c) => `r.${c.name}`)
    .join(', ');
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create sequence envdata.answer_id_seq increment by 64;
    comment on sequence envdata.answer_id_seq is
      'Answer ids in blocks of 64: nextval gives a writer the first of 64 ids of its own.';

    create table envdata.answer_body (
      body_sha256 bytea primary key check (octet_length(body_sha256) = 32),
      encoding text not null default 'gzip' check (encoding = 'gzip'),
      body bytea not null,
      body_bytes integer not null,
      stored_at timestamptz not null default now()
    );
    comment on table envdata.answer_body is
      'Each answer body the archive keeps, once per SHA-256 of the body as received (gzip).';

    create table envdata.answer (
      answer_id bigint primary key,
      chunk_id bigint,
      run_id integer references envdata.run on delete set null,
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      window_from timestamptz not null,
      window_to timestamptz not null,
      endpoint text,
      http_status smallint not null,
      fetched_at timestamptz not null,
      landed_at timestamptz not null default now(),
      body_sha256 bytea not null check (octet_length(body_sha256) = 32)
    );
    create index answer_chunk on envdata.answer (chunk_id, answer_id);
    create index answer_replay on envdata.answer (dataset, location_id, window_from);
    create index answer_run on envdata.answer (run_id);
    create index answer_body_sha256 on envdata.answer (body_sha256);
    comment on table envdata.answer is
      'Each answer that landed anything: what was asked, when it was fetched and landed, and the SHA-256 of its body (kept in answer_body while the archive keeps it).';
  `.execute(db);

  // Bodies archived before 0014 have no digest: it is computed from the body, one by one.
  const legacy = await sql<{ chunk_id: string; body: Buffer }>`
    select chunk_id, body from envdata.raw_payload where body_sha256 is null`.execute(db);
  for (const row of legacy.rows) {
    const digest = createHash('sha256').update(gunzipSync(row.body)).digest();
    await sql`update envdata.raw_payload set body_sha256 = ${digest}
      where chunk_id = ${row.chunk_id}`.execute(db);
  }

  await sql`
    insert into envdata.answer_body (body_sha256, body, body_bytes)
    select distinct on (body_sha256) body_sha256, body, body_bytes
    from envdata.raw_payload order by body_sha256, fetched_at desc;

    insert into envdata.answer (answer_id, chunk_id, run_id, location_id, dataset, window_from,
      window_to, http_status, fetched_at, landed_at, body_sha256)
    select nextval('envdata.answer_id_seq'), chunk_id, run_id, location_id, dataset, window_from,
      window_to, http_status, fetched_at, fetched_at, body_sha256
    from envdata.raw_payload order by chunk_id;

    drop table envdata.raw_payload;
    create view envdata.raw_payload as
    select distinct on (a.chunk_id) a.chunk_id, a.answer_id, a.fetched_at, a.http_status,
      b.encoding, b.body, b.body_bytes, a.run_id, a.location_id, a.dataset, a.window_from,
      a.window_to, a.body_sha256, a.endpoint
    from envdata.answer a join envdata.answer_body b using (body_sha256)
    where a.chunk_id is not null
    order by a.chunk_id, a.answer_id desc;
    comment on view envdata.raw_payload is
      'Each chunk''s newest answer whose body the archive keeps (what envdata rebuild lands).';

    create view analytics.answers as
    select a.answer_id, a.location_id, a.dataset::text as dataset, a.window_from, a.window_to,
      a.endpoint, a.http_status, a.fetched_at, a.landed_at, a.run_id,
      encode(a.body_sha256, 'hex') as answer_sha256,
      b.body_bytes, b.body_sha256 is not null as body_archived
    from envdata.answer a left join envdata.answer_body b using (body_sha256);
    grant select on analytics.answers to envdata_bi;
    comment on view analytics.answers is
      'Each answer of the service that landed anything: what was asked (location, dataset, window, endpoint), when it was fetched and landed, by which run, and the SHA-256 of its body (hex) as received. body_archived: the archive still keeps the body (ENVDATA_ARCHIVE_RAW, ENVDATA_ARCHIVE_RETENTION_DAYS).';
    ${sql.raw(commentColumns(ANSWERS))}
  `.execute(db);

  for (const fact of FACTS) {
    const t = fact.table;
    await sql`
      alter table ${sql.raw(`envdata.${t}`)} add column answer_id bigint;
      comment on column ${sql.raw(`envdata.${t}.answer_id`)} is
        'The answer (envdata.answer) that last set this row''s values; null when landed before provenance was kept (migration 0051).';

      create table ${sql.raw(`envdata.${t}_revision`)} (
        location_id integer not null references envdata.location on delete cascade,
        observed_at timestamptz not null,
        ${sql.raw(fact.columns.join(',\n        '))},
        answer_id bigint,
        valid_from timestamptz,
        valid_to timestamptz not null,
        replaced_by_answer bigint
      );
      create index ${sql.raw(`${t}_revision_key`)} on ${sql.raw(`envdata.${t}_revision`)}
        (location_id, observed_at, valid_to);
      create index ${sql.raw(`${t}_revision_replaced_by`)} on ${sql.raw(`envdata.${t}_revision`)}
        (replaced_by_answer);
      comment on table ${sql.raw(`envdata.${t}_revision`)} is
        'Values of envdata.${sql.raw(t)} a landing replaced: valid from valid_from (null: landed before migration 0051) until valid_to, set by answer_id, replaced by replaced_by_answer (its run: envdata.answer.run_id).';

      -- A landing replaces values with those of its answer (answer_id changes): the values
      -- before are kept, row by row, in the statement that changes them. An update that keeps
      -- the answer (a repair of units by a migration) is no revision.
      create function ${sql.raw(`envdata.${t}_keep_revision`)}() returns trigger
      language plpgsql as $fn$
      begin
        insert into ${sql.raw(`envdata.${t}_revision`)} (location_id, observed_at,
          ${sql.raw(columnNames(fact))}, answer_id, valid_from, valid_to, replaced_by_answer)
        values (old.location_id, old.observed_at, ${sql.raw(columnNames(fact, 'old.'))},
          old.answer_id,
          (select a.landed_at from envdata.answer a where a.answer_id = old.answer_id),
          now(), new.answer_id);
        return null;
      end
      $fn$;
      create trigger keep_revision after update on ${sql.raw(`envdata.${t}`)}
        for each row when (new.answer_id is distinct from old.answer_id)
        execute function ${sql.raw(`envdata.${t}_keep_revision`)}();

      create view ${sql.raw(`analytics.${t}_source`)} as
      select f.location_id, f.observed_at, ${sql.raw(fact.shownKey)}
        a.answer_id, encode(a.body_sha256, 'hex') as answer_sha256, a.fetched_at, a.landed_at,
        a.run_id, a.endpoint, a.http_status, f.answer_id is null as traced_by_window
      from ${sql.raw(`envdata.${t}`)} f ${sql.raw(fact.joins)}
      left join lateral (
        select x.* from envdata.answer x
        where x.answer_id = f.answer_id
        union all
        (select x.* from envdata.answer x
          where f.answer_id is null and x.location_id = f.location_id
            and x.dataset = ${sql.lit(fact.dataset)}
            and x.window_from <= f.observed_at and x.window_to > f.observed_at
          order by x.answer_id desc limit 1)
      ) a on true;
      grant select on ${sql.raw(`analytics.${t}_source`)} to envdata_bi;
      comment on view ${sql.raw(`analytics.${t}_source`)} is
        'Where each row of analytics.${sql.raw(t)} came from: the answer that last set its values (analytics.answers), its SHA-256, when it was fetched and landed, by which run and endpoint. traced_by_window: the row landed before envdata kept per-row sources (migration 0051) and is traced to the newest archived answer of its window.';

      create view ${sql.raw(`analytics.${t}_revisions`)} as
      select f.location_id, l.name as location_name, f.observed_at, ${sql.raw(fact.shown)},
        f.valid_from, f.valid_to, f.answer_id, f.replaced_by_answer, r.run_id as replaced_by_run
      from ${sql.raw(`envdata.${t}_revision`)} f
      join envdata.location l using (location_id) ${sql.raw(fact.joins)}
      left join envdata.answer r on r.answer_id = f.replaced_by_answer;
      grant select on ${sql.raw(`analytics.${t}_revisions`)} to envdata_bi;
      comment on view ${sql.raw(`analytics.${t}_revisions`)} is
        'Earlier values of analytics.${sql.raw(t)} that a later answer replaced, shown as there, valid from valid_from (null: landed before envdata kept revisions) until valid_to; answer_id set them, replaced_by_answer of run replaced_by_run replaced them.';

      create function ${sql.raw(`analytics.${t}_as_of`)}(at timestamptz)
      returns setof ${sql.raw(`analytics.${t}`)} language sql stable as $fn$
        select f.* from ${sql.raw(`analytics.${t}`)} f
        join ${sql.raw(`analytics.${t}_source`)} s using (${sql.raw(sourceKey(fact))})
        where s.traced_by_window or s.landed_at <= at
        union all
        select ${sql.raw(shownNames(fact))} from ${sql.raw(`analytics.${t}_revisions`)} r
        where coalesce(r.valid_from, '-infinity') <= at and r.valid_to > at
      $fn$;
      grant execute on function ${sql.raw(`analytics.${t}_as_of`)}(timestamptz) to envdata_bi;
      comment on function ${sql.raw(`analytics.${t}_as_of`)}(timestamptz) is
        'analytics.${sql.raw(t)} as it stood at the instant given (a landing counts from its transaction''s start): current rows landed by then, and the values revised since as they were. Rows landed before envdata kept revisions (migration 0051) count as always there.';
      ${sql.raw(commentColumns(sourceView(fact)))}
      ${sql.raw(commentColumns(revisionsView(fact)))}
    `.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const fact of FACTS) {
    const t = fact.table;
    await sql`
      drop function ${sql.raw(`analytics.${t}_as_of`)}(timestamptz);
      drop view ${sql.raw(`analytics.${t}_revisions`)}, ${sql.raw(`analytics.${t}_source`)};
      drop trigger keep_revision on ${sql.raw(`envdata.${t}`)};
      drop function ${sql.raw(`envdata.${t}_keep_revision`)}();
      drop table ${sql.raw(`envdata.${t}_revision`)};
      alter table ${sql.raw(`envdata.${t}`)} drop column answer_id;
    `.execute(db);
  }
  await sql`
    drop view analytics.answers;
    drop view envdata.raw_payload;
    create table envdata.raw_payload (
      chunk_id bigint primary key,
      fetched_at timestamptz not null,
      http_status smallint not null,
      encoding text not null default 'gzip' check (encoding = 'gzip'),
      body bytea not null,
      body_bytes integer not null,
      run_id integer references envdata.run on delete set null,
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      window_from timestamptz not null,
      window_to timestamptz not null,
      body_sha256 bytea check (octet_length(body_sha256) = 32)
    );
    create index raw_payload_replay on envdata.raw_payload (dataset, location_id, window_from);
    insert into envdata.raw_payload
    select distinct on (a.chunk_id) a.chunk_id, a.fetched_at, a.http_status, b.encoding, b.body,
      b.body_bytes, a.run_id, a.location_id, a.dataset, a.window_from, a.window_to, a.body_sha256
    from envdata.answer a join envdata.answer_body b using (body_sha256)
    where a.chunk_id is not null
    order by a.chunk_id, a.answer_id desc;
    drop table envdata.answer, envdata.answer_body;
    drop sequence envdata.answer_id_seq;
  `.execute(db);
}
