import { sql, type RawBuilder } from 'kysely';
import type { Dataset, Window } from '../types.js';
import type { AlongsideFacts } from '../warehouse/write-facts.js';
import { byteaArray, instants, named, type Statement } from '../warehouse/wire/index.js';
import { storableJson, storableText } from '../warehouse/storable-json.js';
import type { ChunkOutcome, HoleCause } from '../warehouse/schema.js';

/**
 * What a landing means for the ledger:
 * - `done`: the chunk is finished; its window's holes are rewritten from this answer.
 * - `refetch`: hours are missing or quarantined and the re-fetch policy allows another call;
 *   the chunk waits again (`MISSING_HOURS`), what arrived is covered.
 * - `partial`: a trimmed (206) answer; what arrived is covered, the chunk is fetched again (an
 *   attempt: `PARTIAL`).
 * - `failed`: a trimmed answer at the chunk's last attempt: what arrived is covered, the chunk
 *   fails (`PARTIAL`).
 * - `rebuild`: re-landed from the archive; only adds what landed, touches no chunk.
 */
export type LandingState = 'done' | 'refetch' | 'partial' | 'failed' | 'rebuild';

/** One chunk's landing as the ledger records it, in the landing's own transaction. */
export interface LandingRecord {
  readonly chunkId: number;
  readonly runId: number | null;
  readonly locationId: number;
  readonly dataset: Dataset;
  readonly window: Window;
  readonly outcome: ChunkOutcome;
  readonly state: LandingState;
  readonly calls: number;
  readonly attempts: number;
  readonly startedAt: Date;
  /** Fact rows the answer normalized to. */
  readonly rows: number;
  /** Of `rows`, how many fall in each hour (epoch ms): what `newRows` is counted from. */
  readonly rowsByHour?: ReadonlyMap<number, number>;
  /**
   * Of `rows`, those of hours the coverage did not hold when the landing opened
   * (`OpenedLanding.landedBefore`): what the chunk's, and its run's, row figure adds. Hours
   * landed already (by another run, by an earlier answer to this chunk) are not counted twice.
   * `rows` when not told.
   */
  readonly newRows?: number;
  /**
   * Hours it brought rows for that the coverage held when the landing opened: hours re-read,
   * whose values it may have revised (the chunk's and its run's `reread_hours`). 0 when not told.
   */
  readonly rereadHours?: number;
  readonly recordsQuarantined: number;
  /** Hours whose rows are now in the facts. */
  readonly landed: readonly Window[];
  /** Hours by cause that did not land (recorded as holes when `state` is `done`). */
  readonly holes: Readonly<Record<HoleCause, readonly Window[]>>;
  /** Hours answered "Data not available!": a clean zero. */
  readonly noData: readonly Window[];
  /** Why the chunk waits again or failed (`refetch`, `partial`, `failed`): code and message. */
  readonly error?: { readonly code: 'MISSING_HOURS' | 'PARTIAL'; readonly message: string };
  readonly quarantine: readonly QuarantineEntry[];
  /** The answer it came from (`envdata.answer`); none for a landing with no body. */
  readonly answer?: LandingAnswer;
}

export interface QuarantineEntry {
  readonly source: string;
  readonly recordIndex: number;
  readonly raw: unknown;
  readonly reason: string;
  readonly hour: Date | undefined;
}

/** An answer as `envdata.answer` records it, with its body for `envdata.answer_body`. */
export interface LandingAnswer {
  readonly answerId: number;
  readonly fetchedAt: Date;
  readonly httpStatus: number;
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  /**
   * The body, gzip-compressed; `undefined` when the archive holds this very body already, or
   * keeps no bodies (ENVDATA_ARCHIVE_RAW=false).
   */
  readonly body: Buffer | undefined;
  readonly bodyBytes: number;
  readonly endpoint: string | undefined;
  /**
   * Some answer of the archive has this very body already: landed again with no fact changed,
   * it adds no answer (the archive grows only with change).
   */
  readonly known?: boolean;
}

const HOUR_MS = 3_600_000;

function hoursIn(ranges: readonly Window[]): number {
  return ranges.reduce((n, r) => n + (r.to.getTime() - r.from.getTime()) / HOUR_MS, 0);
}

/**
 * Everything the ledger keeps of a batch of landings, sent beside its facts in the landing's
 * transaction (`writeFacts`, after `openLanding`): the quarantine log, raw payloads, dirty rollup
 * days (when the facts changed: identical rows landed again dirty nothing), coverage (what
 * landed, what was answered "no data"), holes, and each chunk's state — the log alone when the
 * landings are `settled` (see `OpenedLanding.settled`) — and last their answers (`answerWrites`).
 * Coverage rows are locked in key order, so concurrent batches never deadlock; coverage only
 * grows here.
 */
export function ledgerStatements(
  landings: readonly LandingRecord[],
  settled: boolean,
): AlongsideFacts {
  if (landings.length === 0) return { first: [], after: () => [] };
  if (settled) {
    // The log needs not know whether the facts changed; the dirty days do.
    return {
      first: [named('landing_log', sql`with ${logWrites(landings)} select 1`)],
      after: (factsChanged) => [
        ...(factsChanged ? [named('landing_dirty_days', dirtyInsert(landings))] : []),
        ...answerWrites(landings, factsChanged),
      ],
    };
  }
  // Two statements: the log with what landed, then holes with the chunks' states (holes need
  // the coverage the first one wrote; chunk rows are locked after coverage rows, as always).
  const coverage = coverageParts(landings);
  return {
    first: [],
    after: (factsChanged) => [
      named(
        'landing_coverage',
        sql`
    with ${logWrites(landings)}, dirty as (${dirtyInsert(factsChanged ? landings : [])})
    ${coverageUpsert(coverage)}`,
      ),
      named(
        'landing_holes',
        sql`
    with ${chunkStates(landings.filter((l) => l.state !== 'rebuild'))},
    ${holeWrites(coverage)}`,
      ),
      ...answerWrites(landings, factsChanged),
    ],
  };
}

/**
 * The landings' answers (`envdata.answer`) and the bodies the archive does not hold yet
 * (`envdata.answer_body`, once per SHA-256, in SHA-256 order so concurrent batches wait for each
 * other's bodies in one order). When no fact changed, an answer whose body some answer has
 * already (`known`) adds nothing: nothing but a statement when there is something to write.
 */
function answerWrites(
  landings: readonly LandingRecord[],
  factsChanged: boolean,
): Statement<unknown>[] {
  const a = landings.flatMap((l) =>
    l.answer && (factsChanged || !l.answer.known) ? [{ l, a: l.answer }] : [],
  );
  if (a.length === 0) return [];
  const bodies = [
    ...new Map(
      a.flatMap(({ a }) => (a.body ? [[a.digest.toString('hex'), a] as const] : [])),
    ).values(),
  ].sort((x, y) => Buffer.compare(x.digest, y.digest));
  return [
    named(
      'landing_answers',
      sql`
    with bodies as (
      insert into envdata.answer_body (body_sha256, body, body_bytes)
      select * from unnest(${bodies.map((b) => b.digest)}::bytea[],
        ${byteaArray(bodies.map((b) => b.body!))}, ${bodies.map((b) => b.bodyBytes)}::int[])
      on conflict (body_sha256) do nothing
    )
    insert into envdata.answer (answer_id, chunk_id, run_id, location_id, dataset, window_from,
      window_to, endpoint, http_status, fetched_at, body_sha256)
    select * from unnest(${a.map(({ a }) => a.answerId)}::bigint[],
      ${a.map(({ l }) => l.chunkId)}::bigint[], ${a.map(({ l }) => l.runId)}::int[],
      ${a.map(({ l }) => l.locationId)}::int[], ${a.map(({ l }) => l.dataset)}::envdata.dataset[],
      ${instants(a.map(({ l }) => l.window.from))}::timestamptz[],
      ${instants(a.map(({ l }) => l.window.to))}::timestamptz[],
      ${a.map(({ a }) => a.endpoint ?? null)}::text[], ${a.map(({ a }) => a.httpStatus)}::smallint[],
      ${instants(a.map(({ a }) => a.fetchedAt))}::timestamptz[],
      ${a.map(({ a }) => a.digest)}::bytea[])`,
    ),
  ];
}

/**
 * Quarantine entries (replacing the chunk's earlier ones), as data-modifying CTEs (`cleared as
 * (…), …`) for the statement that writes coverage.
 */
function logWrites(landings: readonly LandingRecord[]): RawBuilder<unknown> {
  const chunkIds = landings.map((l) => l.chunkId);
  const q = landings.flatMap((l) => l.quarantine.map((e) => ({ l, e })));
  return sql`
    cleared as (
      delete from envdata.quarantine where chunk_id = any(${chunkIds}::bigint[])
    ), quarantined as (
      insert into envdata.quarantine
        (chunk_id, run_id, location_id, source, record_index, raw, reason, observed_at)
      select * from unnest(${q.map(({ l }) => l.chunkId)}::bigint[],
        ${q.map(({ l }) => l.runId)}::int[], ${q.map(({ l }) => l.locationId)}::int[],
        ${q.map(({ e }) => e.source)}::text[], ${q.map(({ e }) => e.recordIndex)}::int[],
        ${q.map(({ e }) => storableJson(e.raw))}::jsonb[],
        ${q.map(({ e }) => storableText(e.reason))}::text[], ${instants(q.map(({ e }) => e.hour ?? null))}::timestamptz[])
    )`;
}

/** The days of `landings` that brought rows, marked for the rollups to recompute. */
function dirtyInsert(all: readonly LandingRecord[]): RawBuilder<unknown> {
  const landings = all.filter((l) => l.rows > 0);
  return sql`
      insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
      select * from unnest(${landings.map((l) => l.locationId)}::int[],
        ${landings.map((l) => l.dataset)}::envdata.dataset[],
        ${instants(landings.map((l) => l.window.from))}::timestamptz[],
        ${instants(landings.map((l) => l.window.to))}::timestamptz[])`;
}

/** One range of one landing's hours, by what it means for coverage and holes. */
interface CoveragePart {
  readonly locationId: number;
  readonly dataset: Dataset;
  /** `touch`, `landed`, `rewrite`, `no_data` or a hole cause. */
  readonly kind: string;
  readonly from: Date;
  readonly to: Date;
  readonly runId: number | null;
}

/**
 * The ranges a batch brings to coverage and holes, in (location, dataset) order: hours that
 * landed are added to `landed` and taken out of every hole; a finished chunk's window has its
 * holes rewritten from this answer (missing upstream, quarantined, not covered, no data), never
 * over hours that landed.
 */
function coverageParts(landings: readonly LandingRecord[]): readonly CoveragePart[] {
  const parts: CoveragePart[] = [];
  const add = (l: LandingRecord, kind: string, ranges: readonly Window[]) => {
    for (const r of ranges) {
      parts.push({ locationId: l.locationId, dataset: l.dataset, kind, runId: l.runId, ...r });
    }
  };
  for (const l of landings) {
    add(l, 'touch', [{ from: l.window.from, to: l.window.from }]);
    add(l, 'landed', l.landed);
    if (l.state !== 'done') continue;
    add(l, 'rewrite', [l.window]);
    add(l, 'no_data', l.noData);
    for (const cause of ['missing_upstream', 'quarantined', 'not_covered'] as const) {
      add(l, cause, l.holes[cause]);
    }
  }
  return parts.sort((a, b) => a.locationId - b.locationId || a.dataset.localeCompare(b.dataset));
}

function partsInput(parts: readonly CoveragePart[]): RawBuilder<unknown> {
  return sql`unnest(${parts.map((p) => p.locationId)}::int[],
    ${parts.map((p) => p.dataset)}::envdata.dataset[], ${parts.map((p) => p.kind)}::text[],
    ${instants(parts.map((p) => p.from))}::timestamptz[], ${instants(parts.map((p) => p.to))}::timestamptz[],
    ${parts.map((p) => p.runId)}::int[]) as k(location_id, dataset, kind, f, t, run_id)`;
}

/**
 * Coverage: what landed and what was answered "no data" added, rows locked in key order so
 * concurrent batches never deadlock.
 */
function coverageUpsert(parts: readonly CoveragePart[]): RawBuilder<unknown> {
  return sql`
    insert into envdata.coverage as c (location_id, dataset, landed, no_data)
    select k.location_id, k.dataset,
      coalesce(range_agg(tstzrange(k.f, k.t)) filter (where k.kind = 'landed'), '{}'),
      coalesce(range_agg(tstzrange(k.f, k.t)) filter (where k.kind = 'no_data'), '{}')
    from ${partsInput(parts)}
    group by k.location_id, k.dataset
    order by k.location_id, k.dataset
    on conflict (location_id, dataset) do update set
      landed = c.landed + excluded.landed, no_data = c.no_data + excluded.no_data,
      updated_at = now()
    -- Hours covered already (a re-landing): the row is neither rewritten nor its time touched.
    where not (c.landed @> excluded.landed and c.no_data @> excluded.no_data)`;
}

/**
 * Holes, after coverage was written (hours that landed are never a hole): holes the batch's
 * landed hours or rewritten windows overlap are cut, and the finished chunks' new holes added.
 * CTEs first (`input as (…), …`), then the insert.
 */
function holeWrites(parts: readonly CoveragePart[]): RawBuilder<unknown> {
  return sql`
    input as (select * from ${partsInput(parts)}), touched as (
      select location_id, dataset,
        coalesce(range_agg(tstzrange(f, t)) filter (where kind = 'rewrite'), '{}') as rewrite,
        coalesce(range_agg(tstzrange(f, t)) filter (where kind = 'landed'), '{}') as landed
      from input group by location_id, dataset
    ), old as (
      delete from envdata.coverage_hole h using touched t
      where h.location_id = t.location_id and h.dataset = t.dataset
        and (t.rewrite && h.hours or t.landed && h.hours)
      returning h.location_id, h.dataset, h.hours, h.cause, h.run_id, h.checked_at, t.rewrite,
        t.landed
    )
    insert into envdata.coverage_hole (location_id, dataset, hours, cause, run_id, checked_at)
    select o.location_id, o.dataset, part, o.cause, o.run_id, o.checked_at
    from old o cross join lateral unnest(tstzmultirange(o.hours) - o.rewrite - o.landed) as part
    union all
    select i.location_id, i.dataset, part, i.kind, i.run_id, now()
    from input i join envdata.coverage c using (location_id, dataset)
    cross join lateral unnest(tstzmultirange(tstzrange(i.f, i.t)) - c.landed) as part
    -- "No data" is a hole too, for its time: it is asked again after ENVDATA_NO_DATA_RECHECK.
    where i.kind in ('missing_upstream', 'quarantined', 'no_data')
      -- A 404 counts as "not covered" only while its run runs: a run stopped for a wrong
      -- address has forgotten what it was told.
      or i.kind = 'not_covered' and exists (
        select 1 from envdata.run r where r.run_id = i.run_id and r.status = 'running')`;
}

/**
 * Each chunk's state, figures and hours by cause, as a data-modifying CTE (`states as (…)`). A
 * chunk already done stays as it was.
 */
function chunkStates(landings: readonly LandingRecord[]): RawBuilder<unknown> {
  const col = <T>(f: (l: LandingRecord) => T) => landings.map(f);
  // A 404 that reaches a run stopped for a wrong address is forgotten: the chunk waits again.
  const forgotten = sql`(u.outcome = 'not_covered' and c.run_id is not null and not exists (
    select 1 from envdata.run r where r.run_id = c.run_id and r.status = 'running'))`;
  return sql`states as (
    update envdata.chunk c set
      status = case when ${forgotten} then 'queued'::envdata.chunk_status
        when u.state = 'done' then 'done'::envdata.chunk_status
        when u.state in ('refetch', 'partial') then 'queued'::envdata.chunk_status
        when u.state = 'failed' then 'failed'::envdata.chunk_status else c.status end,
      outcome = case when ${forgotten} then null else u.outcome end,
      -- Rows of hours new to the coverage, added: a re-read of landed hours counts none.
      rows_landed = c.rows_landed + u.rows,
      reread_hours = c.reread_hours + u.reread_hours,
      rows_quarantined = u.quarantined,
      calls = c.calls + u.calls,
      attempts = greatest(c.attempts, u.attempts),
      refetches = c.refetches + (u.state = 'refetch')::int,
      missing_hours = u.missing_hours,
      quarantined_hours = u.quarantined_hours,
      not_covered_hours = case when ${forgotten} then 0 else u.not_covered_hours end,
      no_data_hours = u.no_data_hours,
      error_code = u.error_code,
      error_message = u.message,
      started_at = coalesce(c.started_at, u.started_at),
      finished_at = case when u.state = 'done' and not ${forgotten} or u.state = 'failed' then now()
        else c.finished_at end
    from unnest(${col((l) => l.chunkId)}::bigint[], ${col((l) => l.state)}::text[],
      ${col((l) => l.outcome)}::text[], ${col((l) => l.newRows ?? l.rows)}::int[],
      ${col((l) => l.rereadHours ?? 0)}::int[],
      ${col((l) => l.recordsQuarantined)}::int[], ${col((l) => l.calls)}::int[],
      ${col((l) => l.attempts)}::int[], ${instants(col((l) => l.startedAt))}::timestamptz[],
      ${col((l) => hoursIn(l.holes.missing_upstream))}::int[],
      ${col((l) => hoursIn(l.holes.quarantined))}::int[],
      ${col((l) => hoursIn(l.holes.not_covered))}::int[], ${col((l) => hoursIn(l.noData))}::int[],
      ${col((l) => l.error?.code ?? null)}::text[], ${col((l) => l.error?.message ?? null)}::text[])
      as u(chunk_id, state, outcome, rows, reread_hours, quarantined, calls, attempts, started_at, missing_hours,
        quarantined_hours, not_covered_hours, no_data_hours, error_code, message)
    where c.chunk_id = u.chunk_id and c.status not in ('done', 'split')
  )`;
}
