import { sql, type Kysely, type Transaction } from 'kysely';
import { coerceError } from '../errors/coerce-error.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import {
  MAX_PROBES_PER_RUN,
  nextWindow,
  settledWindow,
  type WindowScope,
} from '../windows/learned-window.js';
import { tileFrom, tileWindows } from '../windows/tile-windows.js';
import { settledHours, type NoDataRecheck } from './find-gaps.js';
import { readHistoryWindow, recordProbe, type HistoryWindow } from './history-window.js';
import { frozenDataset } from './drift-policy.js';
import { recordLineage } from './record-lineage.js';

/** A chunk to put on the queue; urgent ones (a sync) go before everything else. */
export interface DispatchChunk {
  readonly chunkId: number;
  readonly urgent: boolean;
}

/** A run that could not be fed: it was marked failed with this reason; the others went on. */
export interface UnfedRun {
  readonly runId: number;
  readonly reason: string;
}

export interface MaterializeOptions {
  readonly urgentOnly?: boolean;
  /** Holes asked about less than this long ago are not asked again (see `settledHours`). */
  readonly recheckMs: number;
  /** "No data" hours answered less than this long ago are not asked again; 0 never. */
  readonly noDataRecheckMs?: number;
  /** Told about each run that could not be fed. */
  readonly onUnfed?: (run: UnfedRun) => void;
  /**
   * The key and address whose learned window sizes the chunks of `window_auto` runs. Without
   * it, those runs are left to a feeder that knows the key (every worker does).
   */
  readonly windowScope?: WindowScope;
}

interface OpenGap {
  run_gap_id: number;
  run_id: number;
  dataset: Dataset;
  location_id: number;
  next_from: Date;
  gap_to: Date;
  window_hours: number;
  priority: number;
  refetch: boolean;
  window_auto: boolean;
  /** Probes made so far for the gap's run and dataset (every gap of them). */
  run_probes: number;
}

/**
 * Turns up to `limit` windows of the open gaps of running runs into `queued` chunks, highest
 * priority run first, and advances the gaps' cursors, in one transaction. One feeder at a time
 * across all hosts (a transaction-scoped advisory lock); the others return nothing. A window
 * whose hours are all settled in the coverage (landed meanwhile, by another run say) is skipped
 * unless the gap re-reads (a sync's lookback). Each run is fed inside a savepoint: a run whose
 * chunks cannot be written is marked failed with the reason and never blocks the others.
 * Returns the ids to dispatch.
 */
export async function materializeChunks(
  db: Kysely<Database>,
  limit: number,
  options: MaterializeOptions,
): Promise<DispatchChunk[]> {
  if (limit <= 0) return [];
  return db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{ ok: boolean }>`
      select pg_try_advisory_xact_lock(hashtext('envdata.feeder')) as ok`.execute(trx);
    if (!lock[0]?.ok) return [];
    const { rows: gaps } = await sql<OpenGap>`
      select g.run_gap_id, g.run_id, g.dataset, g.location_id, g.next_from, g.gap_to, g.window_hours,
        r.priority, g.refetch, r.window_auto,
        (select coalesce(sum(x.window_probes), 0)::int from envdata.run_gap x
          where x.run_id = g.run_id and x.dataset = g.dataset) as run_probes
      from envdata.run_gap g join envdata.run r using (run_id)
      where r.status = 'running' and g.next_from < g.gap_to
        and (${options.urgentOnly ?? false} = false or r.priority > 0)
        and not (g.dataset::text = any(r.blocked_datasets))
        and not ${frozenDataset(sql`g.dataset`)}
      order by r.priority desc, g.run_id, g.run_gap_id
      limit 1000`.execute(trx);

    const dispatch: DispatchChunk[] = [];
    const learned = new LearnedWindows(trx, options.windowScope);
    let remaining = limit;
    for (const runGaps of groupByRun(gaps)) {
      if (remaining <= 0) break;
      const runId = runGaps[0]!.run_id;
      await sql`savepoint feed_run`.execute(trx);
      try {
        const fed = await feedRun(
          trx,
          runGaps,
          remaining,
          [options.recheckMs, options.noDataRecheckMs ?? 0],
          learned,
        );
        remaining -= fed.windows;
        dispatch.push(...fed.chunks);
        await sql`release savepoint feed_run`.execute(trx);
      } catch (thrown) {
        await sql`rollback to savepoint feed_run`.execute(trx);
        const reason = `its plan could not be turned into chunks: ${coerceError(thrown).message}`;
        await trx
          .updateTable('run')
          .set({
            status: 'failed',
            error_code: 'PLAN_INVALID',
            error_message: reason,
            finished_at: new Date(),
          })
          .where('run_id', '=', runId)
          .execute();
        await recordLineage(trx, runId, 'FAIL');
        options.onUnfed?.({ runId, reason });
      }
    }
    return dispatch;
  });
}

function groupByRun(gaps: readonly OpenGap[]): OpenGap[][] {
  const runs = new Map<number, OpenGap[]>();
  for (const gap of gaps) {
    const list = runs.get(gap.run_id);
    if (list) list.push(gap);
    else runs.set(gap.run_id, [gap]);
  }
  return [...runs.values()];
}

/**
 * What the feeder knows, during one pass, of the learned windows of `scope`: per dataset, the
 * ledger's knowledge and whether a probe is in flight (one planned in this pass counts).
 */
class LearnedWindows {
  private readonly known = new Map<Dataset, HistoryWindow>();

  constructor(
    private readonly trx: Transaction<Database>,
    readonly scope: WindowScope | undefined,
  ) {}

  async of(dataset: Dataset): Promise<HistoryWindow | undefined> {
    if (!this.scope) return undefined;
    let known = this.known.get(dataset);
    if (!known) {
      known = await readHistoryWindow(this.trx, this.scope, dataset);
      this.known.set(dataset, known);
    }
    return known;
  }

  probing(dataset: Dataset): void {
    const known = this.known.get(dataset);
    if (known) this.known.set(dataset, { ...known, probeInFlight: true });
  }
}

interface PlannedWindow {
  readonly dataset: Dataset;
  readonly locationId: number;
  readonly from: Date;
  readonly to: Date;
  readonly refetch: boolean;
  /** The gap whose probe this window is (longer than the window known to be accepted). */
  readonly probeOf?: number;
}

/**
 * The next windows of one gap. A fixed window tiles the UTC grid. A learned one
 * (`window_auto`): while the window is being learned, one probe at a time per dataset and key
 * (chunks planned meanwhile would be sized by what it has yet to teach), at most
 * `MAX_PROBES_PER_RUN` per run and dataset; then as many chunks as there is room for, at the
 * accepted window, laid from the gap's cursor.
 */
async function windowsOfGap(
  gap: OpenGap,
  limit: number,
  learned: LearnedWindows,
  probesPlanned: number,
): Promise<PlannedWindow[]> {
  const base = { dataset: gap.dataset, locationId: gap.location_id, refetch: gap.refetch };
  if (!gap.window_auto) {
    return tileWindows(gap.next_from, gap.gap_to, gap.window_hours, limit).map((w) => ({
      ...base,
      ...w,
    }));
  }
  const known = await learned.of(gap.dataset);
  if (!known) return [];
  const next = nextWindow(known);
  if (next.probe && gap.run_probes + probesPlanned < MAX_PROBES_PER_RUN) {
    if (known.probeInFlight) return [];
    const [w] = tileFrom(gap.next_from, gap.gap_to, next.hours, 1);
    if (!w) return [];
    const hours = (w.to.getTime() - w.from.getTime()) / 3_600_000;
    const probe = hours > (known.acceptedHours ?? 0);
    if (probe) learned.probing(gap.dataset);
    return [{ ...base, ...w, ...(probe && { probeOf: gap.run_gap_id }) }];
  }
  const hours = next.probe ? settledWindow(known) : next.hours;
  return tileFrom(gap.next_from, gap.gap_to, hours, limit).map((w) => ({ ...base, ...w }));
}

/** One run's next windows as chunks, and its cursors advanced. */
async function feedRun(
  trx: Transaction<Database>,
  gaps: readonly OpenGap[],
  limit: number,
  [recheckMs, noDataRecheck]: readonly [number, NoDataRecheck],
  learned: LearnedWindows,
): Promise<{ windows: number; chunks: DispatchChunk[] }> {
  const windows: PlannedWindow[] = [];
  const cursors: { id: number; next: Date }[] = [];
  const probesPlanned = new Map<Dataset, number>();
  for (const gap of gaps) {
    if (windows.length >= limit) break;
    const tiles = await windowsOfGap(
      gap,
      limit - windows.length,
      learned,
      probesPlanned.get(gap.dataset) ?? 0,
    );
    if (tiles.length === 0 && gap.window_auto) continue;
    windows.push(...tiles);
    if (tiles.some((w) => w.probeOf !== undefined)) {
      probesPlanned.set(gap.dataset, (probesPlanned.get(gap.dataset) ?? 0) + 1);
    }
    const last = tiles.at(-1)?.to ?? gap.gap_to;
    cursors.push({ id: gap.run_gap_id, next: last > gap.gap_to ? gap.gap_to : last });
  }
  const runId = gaps[0]!.run_id;
  const urgent = gaps[0]!.priority > 0;
  const { rows } = await sql<{
    chunk_id: number;
    dataset: Dataset;
    location_id: number;
    window_from: Date;
  }>`
    insert into envdata.chunk as x (run_id, dataset, location_id, window_from, window_to, status)
    select ${runId}::int, u.dataset, u.location_id, u.window_from, u.window_to, 'queued'
    from unnest(${windows.map((w) => w.dataset)}::envdata.dataset[],
      ${windows.map((w) => w.locationId)}::int[], ${windows.map((w) => w.from)}::timestamptz[],
      ${windows.map((w) => w.to)}::timestamptz[], ${windows.map((w) => w.refetch)}::bool[])
      as u(dataset, location_id, window_from, window_to, refetch)
    left join envdata.coverage c on c.location_id = u.location_id and c.dataset = u.dataset
    where u.refetch or not (${settledHours(recheckMs, noDataRecheck)} @> tstzrange(u.window_from, u.window_to))
    on conflict (run_id, dataset, location_id, window_from, window_to) do nothing
    returning x.chunk_id, x.dataset, x.location_id, x.window_from`.execute(trx);
  await sql`
    update envdata.run_gap g set next_from = u.next_from
    from unnest(${cursors.map((c) => c.id)}::bigint[], ${cursors.map((c) => c.next)}::timestamptz[])
      as u(run_gap_id, next_from)
    where g.run_gap_id = u.run_gap_id`.execute(trx);
  for (const probe of windows.filter((w) => w.probeOf !== undefined)) {
    const row = rows.find(
      (r) =>
        r.dataset === probe.dataset &&
        r.location_id === probe.locationId &&
        r.window_from.getTime() === probe.from.getTime(),
    );
    // A window settled meanwhile was not written: no probe then.
    if (!row || !learned.scope) continue;
    await recordProbe(trx, learned.scope, probe.dataset, row.chunk_id);
    await trx
      .updateTable('run_gap')
      .set((eb) => ({ window_probes: eb('window_probes', '+', 1) }))
      .where('run_gap_id', '=', probe.probeOf!)
      .execute();
  }
  return { windows: windows.length, chunks: rows.map((r) => ({ chunkId: r.chunk_id, urgent })) };
}

/**
 * Chunks of running runs that the ledger says are waiting or in flight, oldest first: what to
 * dispatch again when Redis lost its jobs (a restart, a flush) or a worker died.
 */
export async function undispatchedChunks(
  db: Kysely<Database>,
  limit: number,
  afterChunkId = 0,
): Promise<DispatchChunk[]> {
  const rows = await db
    .selectFrom('chunk as c')
    .innerJoin('run as r', 'r.run_id', 'c.run_id')
    .select(['c.chunk_id', 'r.priority'])
    .where('r.status', '=', 'running')
    .where('c.status', 'in', ['pending', 'queued', 'running'])
    .where(({ not }) => not(frozenDataset(sql`c.dataset`)))
    .where('c.chunk_id', '>', afterChunkId)
    .orderBy('c.chunk_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ chunkId: r.chunk_id, urgent: r.priority > 0 }));
}
