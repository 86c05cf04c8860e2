import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** The `event` of a lineage row in the outbox (`envdata.notification`): never an alert's. */
export const LINEAGE_EVENT = 'lineage';

/** The one delivery target of lineage rows (`notification_delivery.target`): no alert target's id. */
export const LINEAGE_TARGET = 'openlineage';

/** A run's transition, as OpenLineage names it. */
export type LineageEventType = 'START' | 'COMPLETE' | 'FAIL' | 'ABORT';

/** Hours `[from, to)`, ISO 8601 UTC. */
export interface LineageHours {
  readonly from: string;
  readonly to: string;
}

/**
 * What a lineage event says, taken in the transaction of the transition (the outbox row's
 * `details`): a later run never changes an old event. The event itself is built from it when it
 * is delivered (`src/lineage/`).
 */
export interface LineageSnapshot {
  /** The envdata run; `null` for a rebuild, which writes no run (`rebuildId` names it). */
  readonly runId: number | null;
  /**
   * A rebuild's (`envdata rebuild`): the random UUID of its invocation, kept in both of its
   * snapshots: its OpenLineage run id.
   */
  readonly rebuildId?: string;
  /** 1, then one more each time the run runs again after it ended (`resume`, `retry`). */
  readonly attempt: number;
  readonly eventType: LineageEventType;
  /** When the transition committed its work, ISO 8601 UTC. */
  readonly eventTime: string;
  readonly kind: string;
  readonly status: string;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  /** The datasets of the run's plan. */
  readonly datasets: readonly string[];
  /** Terminal events: its failed chunks by error code (`{"HTTP_500": 2}`). */
  readonly failedChunks: Readonly<Record<string, number>>;
  /** Datasets the run stopped asking for (`run.blocked_datasets`). */
  readonly blockedDatasets: readonly string[];
  /** Terminal events: the endpoint paths whose answers landed for the run, by dataset. */
  readonly endpoints: readonly { readonly dataset: string; readonly endpoint: string }[];
  /** Terminal events: rows its chunks landed, by dataset (`chunk.rows_landed`). */
  readonly rows: Readonly<Record<string, number>>;
  /** A rebuild's terminal events: of `rows`, those whose values it inserted or changed. */
  readonly rowsChanged?: Readonly<Record<string, number>>;
  /** Terminal events: rows of its chunks already folded into the run (`run.folded_rows`). */
  readonly foldedRows: number;
  /**
   * Terminal events: per location and dataset, the hours of its plan the coverage holds as
   * complete (landed, or answered "no data") when it ended.
   */
  readonly complete: readonly {
    readonly locationId: number;
    readonly dataset: string;
    readonly ranges: readonly LineageHours[];
  }[];
}

/**
 * Records the lineage event of run `runId`'s transition `eventType` in the outbox, in `trx`, the
 * transition's own transaction: it exists if and only if the transition commits. Keys are one per
 * transition (`lineage:run:12:1:start`, `lineage:run:12:1:end`), so the first terminal event of an
 * attempt is its only one, whoever observes it. A terminal event of an attempt with no START (the
 * run began before a receiver was set) records its START first. Nothing is recorded unless a
 * process with ENVDATA_OPENLINEAGE_URL was seen in the last 7 days (`envdata.lineage_receiver`).
 * Returns whether a row was written.
 */
export async function recordLineage(
  trx: Transaction<Database> | Kysely<Database>,
  runId: number,
  eventType: LineageEventType,
): Promise<boolean> {
  const { rows: on } = await sql<{ on: boolean; starts: number }>`
    select ${receiverSeen} as on,
      (select count(*)::int from envdata.notification n
        where n.event = ${LINEAGE_EVENT} and (n.details->>'runId')::int = ${runId}
          and n.details->>'eventType' = 'START') as starts`.execute(trx);
  if (!on[0]?.on) return false;
  const starts = on[0].starts;
  if (eventType === 'START') return insert(trx, await snapshot(trx, runId, starts + 1, 'START'));
  const attempt = Math.max(starts, 1);
  if (starts === 0) await insert(trx, await snapshot(trx, runId, attempt, 'START'));
  return insert(trx, await snapshot(trx, runId, attempt, eventType));
}

/** Whether a process with ENVDATA_OPENLINEAGE_URL was seen in the last 7 days. */
const receiverSeen = sql<boolean>`exists (select 1 from envdata.lineage_receiver
  where seen_at > now() - interval '7 days')`;

/** What a rebuild's event says, but its time: `recordRebuildLineage` dates it. */
export type RebuildLineage = Omit<LineageSnapshot, 'runId' | 'attempt' | 'eventTime' | 'kind'> & {
  readonly rebuildId: string;
};

/**
 * Records the lineage event of a rebuild (`envdata rebuild`, which writes no run) in the outbox,
 * in one transaction, dated by the warehouse's clock. Keys are one per transition of the
 * invocation (`lineage:rebuild:<uuid>:start`, `…:end`), so its terminal event is its only one.
 * Nothing is recorded unless a receiver was seen in the last 7 days, as for runs. Returns whether
 * a row was written.
 */
export async function recordRebuildLineage(
  db: Kysely<Database>,
  event: RebuildLineage,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ on: boolean; now: Date }>`
      select ${receiverSeen} as on, clock_timestamp() as now`.execute(trx);
    if (!rows[0]?.on) return false;
    return insert(trx, {
      ...event,
      runId: null,
      attempt: 1,
      kind: 'rebuild',
      eventTime: rows[0].now.toISOString(),
    });
  });
}

async function insert(
  trx: Transaction<Database> | Kysely<Database>,
  event: LineageSnapshot,
): Promise<boolean> {
  const end = event.eventType === 'START' ? 'start' : 'end';
  const key =
    event.rebuildId === undefined
      ? `lineage:run:${event.runId}:${event.attempt}:${end}`
      : `lineage:rebuild:${event.rebuildId}:${end}`;
  const { rows } = await sql`
    insert into envdata.notification (dedupe_key, event, details)
    values (${key}, ${LINEAGE_EVENT}, ${JSON.stringify(event)}::jsonb)
    on conflict (dedupe_key) do nothing
    returning notification_id`.execute(trx);
  return rows.length > 0;
}

/** What the event of `eventType` says of run `runId` now. */
async function snapshot(
  trx: Transaction<Database> | Kysely<Database>,
  runId: number,
  attempt: number,
  eventType: LineageEventType,
): Promise<LineageSnapshot> {
  const { rows } = await sql<{
    kind: string;
    status: string;
    error_code: string | null;
    error_message: string | null;
    created_at: Date;
    now: Date;
    folded_rows: string;
    blocked_datasets: string[];
    failed: Record<string, number> | null;
    datasets: string[] | null;
  }>`
    select r.kind::text, r.status::text, r.error_code, r.error_message, r.created_at,
      clock_timestamp() as now, r.folded_rows::text, r.blocked_datasets,
      (select json_object_agg(f.code, f.n) from (
        select coalesce(c.error_code, 'UNKNOWN') as code, count(*)::int as n
        from envdata.chunk c where c.run_id = r.run_id and c.status = 'failed' group by 1) f
      ) as failed,
      (select array_agg(distinct g.dataset::text order by g.dataset::text)
        from envdata.run_gap g where g.run_id = r.run_id) as datasets
    from envdata.run r where r.run_id = ${runId}`.execute(trx);
  const run = rows[0];
  if (!run) throw new Error(`run ${runId} is not in the ledger`);
  const base = {
    runId,
    attempt,
    eventType,
    // A START recorded late (at the end) is dated when the run began.
    eventTime: (eventType === 'START' && run.status !== 'running'
      ? run.created_at
      : run.now
    ).toISOString(),
    kind: run.kind,
    status: run.status,
    errorCode: run.error_code,
    errorMessage: run.error_message,
    datasets: run.datasets ?? [],
    blockedDatasets: run.blocked_datasets,
  };
  if (eventType === 'START') {
    return { ...base, failedChunks: {}, endpoints: [], rows: {}, foldedRows: 0, complete: [] };
  }
  const endpoints = await sql<{ dataset: string; endpoint: string }>`
      select distinct a.dataset::text, a.endpoint from envdata.answer a
      where a.run_id = ${runId} and a.endpoint is not null
      order by 1, 2`.execute(trx);
  const landed = await sql<{ dataset: string; rows: string }>`
      select c.dataset::text, sum(c.rows_landed)::text as rows from envdata.chunk c
      where c.run_id = ${runId} group by 1 order by 1`.execute(trx);
  const complete = await sql<{
    location_id: number;
    dataset: string;
    ranges: { from: string; to: string }[];
  }>`
      select g.location_id, g.dataset::text,
        json_agg(json_build_object('from', lower(u.part), 'to', upper(u.part))
          order by lower(u.part)) as ranges
      from (select location_id, dataset, range_agg(tstzrange(gap_from, gap_to)) as planned
        from envdata.run_gap where run_id = ${runId} group by 1, 2) g
      join envdata.coverage c using (location_id, dataset)
      cross join lateral unnest(g.planned * (c.landed + c.no_data)) as u(part)
      group by 1, 2 order by 1, 2`.execute(trx);
  return {
    ...base,
    failedChunks: run.failed ?? {},
    endpoints: endpoints.rows,
    rows: Object.fromEntries(landed.rows.map((r) => [r.dataset, Number(r.rows)])),
    foldedRows: Number(run.folded_rows),
    complete: complete.rows.map((r) => ({
      locationId: r.location_id,
      dataset: r.dataset,
      ranges: r.ranges.map((h) => ({
        from: new Date(h.from).toISOString(),
        to: new Date(h.to).toISOString(),
      })),
    })),
  };
}
