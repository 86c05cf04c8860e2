import { sql, type Transaction } from 'kysely';
import type { Window } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { instants, named } from '../warehouse/wire/index.js';
import type { LandingRecord } from './record-landings.js';

const HOUR_MS = 3_600_000;

/** What `openLanding` found. */
export interface OpenedLanding {
  /** Of the SHA-256s asked about, those whose bodies the archive holds (hex). */
  readonly storedBodies: ReadonlySet<string>;
  /** Of the answers' SHA-256s asked about, those some answer of the archive has already (hex). */
  readonly knownAnswers: ReadonlySet<string>;
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
   * the log is written (see `ledgerStatements`).
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
 * `record` with `newRows`, its rows minus those of hours in `landedBefore`, and `rereadHours`,
 * the hours of `landedBefore` it brought rows for.
 */
export function withNewRows(
  record: LandingRecord,
  landedBefore: readonly Window[] | undefined,
): LandingRecord {
  if (!landedBefore?.length || !record.rowsByHour) return record;
  let old = 0;
  let rereadHours = 0;
  for (const range of landedBefore) {
    for (let h = range.from.getTime(); h < range.to.getTime(); h += HOUR_MS) {
      const rows = record.rowsByHour.get(h) ?? 0;
      old += rows;
      if (rows > 0) rereadHours++;
    }
  }
  return { ...record, newRows: record.rows - old, rereadHours };
}

/**
 * Opens a landing, first in its transaction: takes its runs' rows, shared, until commit — a run
 * stopped meanwhile (`stopRun`) waits for this landing, and a landing after the stop sees it, so
 * what a stopped run forgets stays forgotten — and returns which of `bodyDigests` the archive
 * holds (with `holdBodies`, when retention is on, held `FOR KEY SHARE` until commit: the
 * retention waits), so that a body is never sent twice, which of `answerDigests` some answer
 * has already (an identical answer that changes nothing adds none), whether any hour of the
 * landings' windows is recorded as landed, and whether the landings are settled already.
 */
export async function openLanding(
  trx: Transaction<Database>,
  landings: readonly LandingRecord[],
  bodyDigests: readonly Buffer[],
  answerDigests: readonly Buffer[] = [],
  holdBodies = false,
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
  // Held only where the archive's retention may delete bodies: a lock is a write of each row.
  const hold = holdBodies ? sql`order by body_sha256 for key share` : sql``;
  const { rows } = await named(
    holdBodies ? 'open_landing_hold' : 'open_landing',
    sql<{
      stored: string[];
      known: string[];
      any_landed: boolean;
      landed_before: { i: number; from: string; to: string }[];
      settled: boolean;
    }>`
    with runs as (
      select run_id from envdata.run where run_id = any(${runs}::int[]) order by run_id for share
    ), held as (
      -- Held until commit when retention is on: pruneAnswerBodies deletes none of them under
      -- this landing's answers.
      select body_sha256 from envdata.answer_body
      where body_sha256 = any(${[...bodyDigests]}::bytea[]) ${hold}
    ), landed as (
      select coalesce(bool_or(c.landed && tstzrange(w.f, w.t)), false) as any_landed,
        coalesce(json_agg(json_build_object('i', w.i - 1, 'from', lower(p.r), 'to', upper(p.r)))
          filter (where p.r is not null), '[]') as landed_before
      from unnest(${landings.map((l) => l.locationId)}::int[],
        ${landings.map((l) => l.dataset)}::envdata.dataset[],
        ${instants(landings.map((l) => l.window.from))}::timestamptz[],
        ${instants(landings.map((l) => l.window.to))}::timestamptz[])
        with ordinality as w(location_id, dataset, f, t, i)
      join envdata.coverage c using (location_id, dataset)
      left join lateral unnest(c.landed * tstzmultirange(tstzrange(w.f, w.t))) as p(r) on true
    ), covered as (
      -- No coverage row: not covered (a NULL would be skipped by bool_and).
      select coalesce(bool_and(coalesce(case b.kind when 'landed' then c.landed @> tstzrange(b.f, b.t)
        else c.no_data @> tstzrange(b.f, b.t) end, false)), true) as covered
      from unnest(${brought.map((b) => b.l.locationId)}::int[],
        ${brought.map((b) => b.l.dataset)}::envdata.dataset[],
        ${brought.map((b) => b.kind)}::text[], ${instants(brought.map((b) => b.from))}::timestamptz[],
        ${instants(brought.map((b) => b.to))}::timestamptz[]) as b(location_id, dataset, kind, f, t)
      left join envdata.coverage c using (location_id, dataset)
    ), done as (
      select count(*) = ${chunkIds.length} as all_done from envdata.chunk
      where chunk_id = any(${chunkIds}::bigint[]) and status in ('done', 'split')
    )
    -- One row; digests as hex text, which the client reads faster than bytea.
    select landed.any_landed, landed.landed_before,
      (select coalesce(array_agg(encode(body_sha256, 'hex')), '{}') from held) as stored,
      (select coalesce(array_agg(distinct encode(a.body_sha256, 'hex')), '{}')
        from envdata.answer a where a.body_sha256 = any(${[...answerDigests]}::bytea[])) as known,
      coalesce(covered.covered, false) and done.all_done as settled
    from (select count(*) from runs) locked
    cross join landed cross join covered cross join done
  `,
  ).execute(trx);
  const storedBodies = new Set(rows[0]?.stored ?? []);
  const landedBefore = new Map<number, Window[]>();
  for (const b of rows[0]?.landed_before ?? []) {
    const list = landedBefore.get(b.i) ?? [];
    list.push({ from: new Date(b.from), to: new Date(b.to) });
    landedBefore.set(b.i, list);
  }
  const knownAnswers = new Set(rows[0]?.known ?? []);
  return {
    storedBodies,
    knownAnswers,
    anyLanded: rows[0]?.any_landed ?? true,
    settled: rows[0]?.settled ?? false,
    landedBefore,
  };
}
