import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Dataset, Window } from '../types.js';
import { instantsLiteral } from '../warehouse/array-literal.js';
import { BinaryArray } from '../warehouse/binary-array.js';
import { OID } from '../warehouse/binary-values.js';
import { prepared } from '../warehouse/pg-client.js';
import { storableJson, storableText } from '../warehouse/storable-json.js';
import type { ChunkOutcome, Database, HoleCause } from '../warehouse/schema.js';

/**
 * What a landing means for the ledger:
 * - `done`: the chunk is finished; its window's holes are rewritten from this answer.
 * - `refetch`: hours are missing or quarantined and the re-fetch policy allows another call;
 *   the chunk waits again (`MISSING_HOURS`), what arrived is covered.
 * - `partial`: a trimmed (206) answer; what arrived is covered, the chunk is fetched again.
 * - `rebuild`: re-landed from the archive; only adds what landed, touches no chunk.
 */
export type LandingState = 'done' | 'refetch' | 'partial' | 'rebuild';

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
  readonly recordsQuarantined: number;
  /** Hours whose rows are now in the facts. */
  readonly landed: readonly Window[];
  /** Hours by cause that did not land (recorded as holes when `state` is `done`). */
  readonly holes: Readonly<Record<HoleCause, readonly Window[]>>;
  /** Hours answered "Data not available!": a clean zero. */
  readonly noData: readonly Window[];
  /** Why the chunk waits again (state `refetch`). */
  readonly message?: string;
  readonly quarantine: readonly QuarantineEntry[];
  readonly archive?: ArchivedPayload;
}

export interface QuarantineEntry {
  readonly source: string;
  readonly recordIndex: number;
  readonly raw: unknown;
  readonly reason: string;
  readonly hour: Date | undefined;
}

export interface ArchivedPayload {
  readonly fetchedAt: Date;
  readonly httpStatus: number;
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  /** The body, gzip-compressed; `undefined` when the archive holds this very body already. */
  readonly body: Buffer | undefined;
  readonly bodyBytes: number;
}

const HOUR_MS = 3_600_000;

function hoursIn(ranges: readonly Window[]): number {
  return ranges.reduce((n, r) => n + (r.to.getTime() - r.from.getTime()) / HOUR_MS, 0);
}

/** What `openLanding` found. */
export interface OpenedLanding {
  /** SHA-256 of the bodies archived for the chunks asked about, by chunk. */
  readonly digests: ReadonlyMap<number, Buffer>;
  /**
   * Whether the ledger records any hour of the landings' windows as landed. When it does not,
   * the facts are most likely stored nowhere yet, and a plain insert needs no probe first (a
   * wrong guess only costs the insert: it fails on the first stored key and the upsert runs).
   */
  readonly anyLanded: boolean;
  /**
   * Whether the landings can change neither coverage, nor holes, nor a chunk: every chunk is
   * done already (a chunk done stays done) and coverage holds every hour they bring (coverage
   * only grows). A worker's late copy of a landing, a re-landing of identical answers: only
   * the log is written (see `recordLandings`).
   */
  readonly settled: boolean;
  /**
   * By index of the landings: the hours of its window the coverage recorded as landed when the
   * landing opened (none listed: none). Read without locking the coverage: two landings of the
   * same new hours committing at once may both count them (`LandingRecord.newRows`).
   */
  readonly landedBefore: ReadonlyMap<number, readonly Window[]>;
}

/**
 * `record` with `newRows`: its rows minus those of hours in `landedBefore`.
 */
export function withNewRows(
  record: LandingRecord,
  landedBefore: readonly Window[] | undefined,
): LandingRecord {
  if (!landedBefore?.length || !record.rowsByHour) return record;
  let old = 0;
  for (const range of landedBefore) {
    for (let h = range.from.getTime(); h < range.to.getTime(); h += HOUR_MS) {
      old += record.rowsByHour.get(h) ?? 0;
    }
  }
  return { ...record, newRows: record.rows - old };
}

/**
 * Opens a landing, first in its transaction: takes its runs' rows, shared, until commit — a run
 * stopped meanwhile (`stopRun`) waits for this landing, and a landing after the stop sees it, so
 * what a stopped run forgets stays forgotten — and returns the SHA-256 of the bodies archived
 * for `bodyChunkIds`, by chunk (none for a body archived before they were kept), so that an
 * identical answer is not sent again, whether any hour of the landings' windows is recorded as
 * landed, and whether the landings are settled already.
 */
export async function openLanding(
  trx: Transaction<Database>,
  landings: readonly LandingRecord[],
  bodyChunkIds: readonly number[],
): Promise<OpenedLanding> {
  const runs = [...new Set(landings.flatMap((l) => (l.runId === null ? [] : [l.runId])))].sort(
    (a, b) => a - b,
  );
  const chunkIds = [...new Set(landings.map((l) => l.chunkId))];
  const brought = landings.flatMap((l) => [
    ...l.landed.map((r) => ({ l, kind: 'landed', ...r })),
    ...l.noData.map((r) => ({ l, kind: 'no_data', ...r })),
  ]);
  // The count makes Postgres lock every run row even when no body is archived yet.
  const { rows } = await prepared(
    sql<{
      chunk_id: number | null;
      body_sha256: Buffer | null;
      any_landed: boolean;
      landed_before: { i: number; from: string; to: string }[];
      settled: boolean;
    }>`
    with runs as (
      select run_id from envdata.run where run_id = any(${runs}::int[]) order by run_id for share
    ), landed as (
      select coalesce(bool_or(c.landed && tstzrange(w.f, w.t)), false) as any_landed,
        coalesce(json_agg(json_build_object('i', w.i - 1, 'from', lower(p.r), 'to', upper(p.r)))
          filter (where p.r is not null), '[]') as landed_before
      from unnest(${landings.map((l) => l.locationId)}::int[],
        ${landings.map((l) => l.dataset)}::envdata.dataset[],
        ${instantsLiteral(landings.map((l) => l.window.from))}::timestamptz[],
        ${instantsLiteral(landings.map((l) => l.window.to))}::timestamptz[])
        with ordinality as w(location_id, dataset, f, t, i)
      join envdata.coverage c using (location_id, dataset)
      left join lateral unnest(c.landed * tstzmultirange(tstzrange(w.f, w.t))) as p(r) on true
    ), covered as (
      -- No coverage row: not covered (a NULL would be skipped by bool_and).
      select coalesce(bool_and(coalesce(case b.kind when 'landed' then c.landed @> tstzrange(b.f, b.t)
        else c.no_data @> tstzrange(b.f, b.t) end, false)), true) as covered
      from unnest(${brought.map((b) => b.l.locationId)}::int[],
        ${brought.map((b) => b.l.dataset)}::envdata.dataset[],
        ${brought.map((b) => b.kind)}::text[], ${instantsLiteral(brought.map((b) => b.from))}::timestamptz[],
        ${instantsLiteral(brought.map((b) => b.to))}::timestamptz[]) as b(location_id, dataset, kind, f, t)
      left join envdata.coverage c using (location_id, dataset)
    ), done as (
      select count(*) = ${chunkIds.length} as all_done from envdata.chunk
      where chunk_id = any(${chunkIds}::bigint[]) and status in ('done', 'split')
    )
    select p.chunk_id, p.body_sha256, landed.any_landed, landed.landed_before,
      coalesce(covered.covered, false) and done.all_done as settled
    from (select count(*) from runs) locked
    cross join landed cross join covered cross join done
    left join envdata.raw_payload p
      on p.chunk_id = any(${[...bodyChunkIds]}::bigint[]) and p.body_sha256 is not null
  `,
  ).execute(trx);
  const digests = new Map<number, Buffer>();
  for (const r of rows)
    if (r.chunk_id !== null && r.body_sha256) digests.set(r.chunk_id, r.body_sha256);
  const landedBefore = new Map<number, Window[]>();
  for (const b of rows[0]?.landed_before ?? []) {
    const list = landedBefore.get(b.i) ?? [];
    list.push({ from: new Date(b.from), to: new Date(b.to) });
    landedBefore.set(b.i, list);
  }
  return {
    digests,
    anyLanded: rows[0]?.any_landed ?? true,
    settled: rows[0]?.settled ?? false,
    landedBefore,
  };
}

/**
 * Everything the ledger keeps of a batch of landings, inside the landing's transaction (after
 * `openLanding` and the facts): the quarantine log, raw payloads, dirty rollup days (when
 * `factsChanged`: identical rows landed again dirty nothing), coverage (what landed, what was
 * answered "no data"), holes, and each chunk's state — the log alone when the landings are
 * `settled`. Coverage rows are locked in key order,
 * so concurrent batches never deadlock; coverage only grows here — a re-read that fails never
 * reaches this function, and one that succeeds adds what it brought.
 */
export async function recordLandings(
  trx: Transaction<Database>,
  landings: readonly LandingRecord[],
  options: { readonly factsChanged: boolean; readonly settled: boolean },
): Promise<void> {
  for (const statement of landingStatements(landings, options)) await statement.execute(trx);
}

/**
 * The statements of `recordLandings`, to run in order in the landing's transaction (they may be
 * sent together: each needs only what the ones before it wrote).
 */
export function landingStatements(
  landings: readonly LandingRecord[],
  options: { readonly factsChanged: boolean; readonly settled: boolean },
): RawBuilder<unknown>[] {
  if (landings.length === 0) return [];
  const log = logWrites(landings, options.factsChanged);
  if (options.settled) {
    // Nothing for coverage, holes or chunks to take (see `OpenedLanding.settled`).
    return [prepared(sql`with ${log} select 1`)];
  }
  // Two statements: the log with what landed, then holes with the chunks' states (holes need
  // the coverage the first one wrote; chunk rows are locked after coverage rows, as always).
  const coverage = coverageParts(landings);
  return [
    prepared(sql`
    with ${log}
    ${coverageUpsert(coverage)}`),
    prepared(sql`
    with ${chunkStates(landings.filter((l) => l.state !== 'rebuild'))},
    ${holeWrites(coverage)}`),
  ];
}

/**
 * Quarantine entries (replacing the chunk's earlier ones), raw payloads and dirty days, as
 * data-modifying CTEs (`cleared as (…), …`) for the statement that writes coverage.
 */
function logWrites(landings: readonly LandingRecord[], factsChanged: boolean): RawBuilder<unknown> {
  const chunkIds = landings.map((l) => l.chunkId);
  const q = landings.flatMap((l) => l.quarantine.map((e) => ({ l, e })));
  const archives = landings.filter((l) => l.archive?.body !== undefined);
  const kept = landings.filter((l) => l.archive !== undefined && l.archive.body === undefined);
  const dirty = factsChanged ? landings.filter((l) => l.rows > 0) : [];
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
        ${q.map(({ e }) => storableText(e.reason))}::text[], ${instantsLiteral(q.map(({ e }) => e.hour ?? null))}::timestamptz[])
    ), archived as (
      insert into envdata.raw_payload as p (chunk_id, fetched_at, http_status, body, body_bytes,
        body_sha256, run_id, location_id, dataset, window_from, window_to)
      select * from unnest(${archives.map((a) => a.chunkId)}::bigint[],
        ${instantsLiteral(archives.map((a) => a.archive!.fetchedAt))}::timestamptz[],
        ${archives.map((a) => a.archive!.httpStatus)}::smallint[],
        ${bodyArray(archives.map((a) => a.archive!.body!))},
        ${archives.map((a) => a.archive!.bodyBytes)}::int[],
        ${archives.map((a) => a.archive!.digest)}::bytea[], ${archives.map((a) => a.runId)}::int[],
        ${archives.map((a) => a.locationId)}::int[],
        ${archives.map((a) => a.dataset)}::envdata.dataset[],
        ${instantsLiteral(archives.map((a) => a.window.from))}::timestamptz[],
        ${instantsLiteral(archives.map((a) => a.window.to))}::timestamptz[])
      on conflict (chunk_id) do update set fetched_at = excluded.fetched_at,
        http_status = excluded.http_status, body_bytes = excluded.body_bytes,
        body = excluded.body, body_sha256 = excluded.body_sha256
    ), kept as (
      -- The body archived is this very body (same SHA-256): only when it was fetched changes.
      update envdata.raw_payload p set fetched_at = k.fetched_at, http_status = k.http_status
      from unnest(${kept.map((k) => k.chunkId)}::bigint[],
        ${instantsLiteral(kept.map((k) => k.archive!.fetchedAt))}::timestamptz[],
        ${kept.map((k) => k.archive!.httpStatus)}::smallint[]) as k(chunk_id, fetched_at, http_status)
      where p.chunk_id = k.chunk_id
    ), dirty as (${dirtyInsert(dirty)})`;
}

/** The days of `landings` marked for the rollups to recompute. */
function dirtyInsert(landings: readonly LandingRecord[]): RawBuilder<unknown> {
  return sql`
      insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
      select * from unnest(${landings.map((l) => l.locationId)}::int[],
        ${landings.map((l) => l.dataset)}::envdata.dataset[],
        ${instantsLiteral(landings.map((l) => l.window.from))}::timestamptz[],
        ${instantsLiteral(landings.map((l) => l.window.to))}::timestamptz[])`;
}

/**
 * The dirty-day marks of a settled batch whose facts changed after all (its log, written before
 * the facts were known, marked none): what `recordLandings` marks with `factsChanged`.
 */
export function dirtyDaysStatement(landings: readonly LandingRecord[]): RawBuilder<unknown> {
  return prepared(dirtyInsert(landings.filter((l) => l.rows > 0)));
}

/**
 * The bodies as ONE `bytea[]` parameter in binary (`BinaryArray`): node-postgres sends a Buffer
 * as it is, where a `bytea[]` of Buffers would travel as hex text twice the size, to be decoded;
 * and the statement's text stays the same whatever the number of bodies (`prepared`).
 */
function bodyArray(bodies: readonly Buffer[]) {
  if (bodies.length === 0) return sql`'{}'::bytea[]`;
  let bytes = 0;
  for (const body of bodies) bytes += 4 + body.length;
  const array = new BinaryArray(OID.bytea, bytes);
  for (const body of bodies) array.bytes(body);
  return sql`${array.build()}::bytea[]`;
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
    ${instantsLiteral(parts.map((p) => p.from))}::timestamptz[], ${instantsLiteral(parts.map((p) => p.to))}::timestamptz[],
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
        when u.state = 'refetch' then 'queued'::envdata.chunk_status else c.status end,
      outcome = case when ${forgotten} then null else u.outcome end,
      -- Rows of hours new to the coverage, added: a re-read of landed hours counts none.
      rows_landed = c.rows_landed + u.rows,
      rows_quarantined = u.quarantined,
      calls = c.calls + u.calls,
      attempts = greatest(c.attempts, u.attempts),
      refetches = c.refetches + (u.state = 'refetch')::int,
      missing_hours = u.missing_hours,
      quarantined_hours = u.quarantined_hours,
      not_covered_hours = case when ${forgotten} then 0 else u.not_covered_hours end,
      no_data_hours = u.no_data_hours,
      error_code = case u.state when 'done' then null when 'refetch' then 'MISSING_HOURS'
        else 'PARTIAL' end,
      error_message = case u.state when 'done' then null when 'refetch' then u.message
        else 'the service trimmed the payload (206); rows kept, chunk will be fetched again' end,
      started_at = coalesce(c.started_at, u.started_at),
      finished_at = case when u.state = 'done' and not ${forgotten} then now() else c.finished_at end
    from unnest(${col((l) => l.chunkId)}::bigint[], ${col((l) => l.state)}::text[],
      ${col((l) => l.outcome)}::text[], ${col((l) => l.newRows ?? l.rows)}::int[],
      ${col((l) => l.recordsQuarantined)}::int[], ${col((l) => l.calls)}::int[],
      ${col((l) => l.attempts)}::int[], ${instantsLiteral(col((l) => l.startedAt))}::timestamptz[],
      ${col((l) => hoursIn(l.holes.missing_upstream))}::int[],
      ${col((l) => hoursIn(l.holes.quarantined))}::int[],
      ${col((l) => hoursIn(l.holes.not_covered))}::int[], ${col((l) => hoursIn(l.noData))}::int[],
      ${col((l) => l.message ?? null)}::text[])
      as u(chunk_id, state, outcome, rows, quarantined, calls, attempts, started_at, missing_hours,
        quarantined_hours, not_covered_hours, no_data_hours, message)
    where c.chunk_id = u.chunk_id and c.status not in ('done', 'split')
  )`;
}
