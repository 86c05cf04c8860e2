import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { materializeChunks } from '../../src/ledger/materialize-chunks.js';
import type { Location } from '../../src/locations/location.js';
import { planRun } from '../../src/planner/plan-run.js';
import type { Dataset } from '../../src/types.js';
import pLimit from 'p-limit';
import { FactWriter, type LandingSummary } from '../../src/landing/fact-writer.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import { ALL_ON, writeTechniques, type Techniques } from './techniques.js';
import type { Database } from '../../src/warehouse/schema.js';
import { landingOf } from './history-payloads.js';
import { sampleMemory, type MemorySample } from './memory.js';
import { changeBody, type ValueChange } from './changed-values.js';

/**
 * Without group commit, a worker lands each chunk in a transaction of its own, as many at once as
 * it works on chunks (ENVDATA_WORKER_CONCURRENCY's default).
 */
const WORKER_CONCURRENCY = 8;

async function landEachAlone(
  writer: FactWriter,
  landings: readonly ChunkLanding[],
): Promise<LandingSummary> {
  const limit = pLimit(WORKER_CONCURRENCY);
  const each = await Promise.all(landings.map((l) => limit(() => writer.land([l]))));
  return {
    results: each.flatMap((s) => s.results),
    rowsWritten: each.reduce((sum, s) => sum + s.rowsWritten, 0),
  };
}

/** History window per chunk (ENVDATA_HISTORY_WINDOW default). */
export const CHUNK_HOURS = 48;

export interface PhaseTotals {
  rows: number;
  written: number;
  /** Inside `FactWriter.land()`. */
  landSeconds: number;
  /** Generating, parsing and normalizing the bodies (the job's part), outside `land()`. */
  prepareSeconds: number;
  /** `FactWriter.stage()`: bodies digested and compressed for the archive, outside `land()`. */
  stageSeconds: number;
  batches: number;
  /** Rows whose values the bench changed in the bodies (`ValueChange`); 0 for an identical re-land. */
  changed: number;
}

const newTotals = (): PhaseTotals => ({
  rows: 0,
  written: 0,
  changed: 0,
  landSeconds: 0,
  prepareSeconds: 0,
  stageSeconds: 0,
  batches: 0,
});

/**
 * Plans a backfill of `datasets` for `locations` over `[from, to)` the way `envdata backfill`
 * does (`planRun`: gaps in the ledger), and materializes every chunk the way the feeder does
 * (`materializeChunks`, in windows of the run's size): one location's windows after the other.
 * Returns the run's id.
 */
export async function planBackfill(
  db: Kysely<Database>,
  request: { locations: readonly Location[]; from: Date; to: Date; datasets: readonly Dataset[] },
): Promise<number> {
  const { runId } = await planRun(
    db,
    { kind: 'backfill', windowHours: CHUNK_HOURS, ...request },
    [],
  );
  if (runId === undefined) throw new Error('the bench planned nothing: is the range in the past?');
  while ((await materializeChunks(db, 5_000, { recheckMs: 0 })).length > 0);
  return runId;
}

/** Lands a run's chunks batch by batch, as workers are handed them, and keeps the figures. */
export class LandingRun {
  private readonly locations: ReadonlyMap<number, Location>;
  readonly memory: MemorySample[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runId: number,
    locations: readonly Location[],
    private readonly options: {
      readonly batch: number;
      readonly archiveRaw: boolean;
      /** The techniques left on (`BENCH_TECHNIQUES`); all by default. */
      readonly techniques?: Techniques;
      readonly datasets?: readonly Dataset[];
      /** False: no export marks (`bench:upsert --no-export-marks`). */
      readonly exportMarks?: boolean;
    },
  ) {
    this.locations = new Map(locations.map((l) => [l.locationId, l]));
  }

  /**
   * Lands every chunk of the run, a batch of weather chunks and a batch of pollen chunks in turn,
   * with a new FactWriter (a new process, cold caches), sampling memory after each batch.
   * `stop` is asked before each batch (an interrupt). With `change`, a share of the values in
   * the bodies is changed first (`changeBody`), as in a revised answer.
   */
  async landAll(stop: () => void, change?: ValueChange): Promise<Record<Dataset, PhaseTotals>> {
    const techniques = this.options.techniques ?? ALL_ON;
    const writer = new FactWriter(this.db, {
      archiveRaw: this.options.archiveRaw,
      techniques: {
        ...writeTechniques(techniques),
        exportMarks: this.options.exportMarks !== false,
      },
    });
    const totals: Record<Dataset, PhaseTotals> = { weather: newTotals(), pollen: newTotals() };
    const after: Record<Dataset, number> = { weather: 0, pollen: 0 };
    const open = new Set<Dataset>(this.options.datasets ?? ['weather', 'pollen']);
    while (open.size > 0) {
      for (const dataset of [...open]) {
        stop();
        const chunks = await this.nextChunks(dataset, after[dataset]);
        if (chunks.length === 0) {
          open.delete(dataset);
          continue;
        }
        after[dataset] = chunks.at(-1)!.chunk_id;
        const total = totals[dataset];
        const t0 = performance.now();
        const landings = chunks.map((c) =>
          landingOf(
            {
              chunkId: c.chunk_id,
              runId: this.runId,
              dataset,
              location: this.locations.get(c.location_id)!,
              window: { from: new Date(c.window_from), to: new Date(c.window_to) },
            },
            change &&
              ((body) => {
                const changed = changeBody(dataset, c.location_id, body, change);
                total.changed += changed.changed;
                return changed.body;
              }),
          ),
        );
        const t1 = performance.now();
        // As the batcher does while the batch before commits: bodies compressed for the archive.
        const staged = await Promise.all(landings.map((l) => writer.stage(l)));
        const t2 = performance.now();
        const summary = techniques.groupCommit
          ? await writer.land(staged)
          : await landEachAlone(writer, staged);
        const t3 = performance.now();
        total.prepareSeconds += (t1 - t0) / 1_000;
        total.stageSeconds += (t2 - t1) / 1_000;
        total.landSeconds += (t3 - t2) / 1_000;
        total.rows += summary.results.reduce((sum, r) => sum + r.rows, 0);
        total.written += summary.rowsWritten;
        total.batches++;
        this.memory.push(sampleMemory());
      }
    }
    return totals;
  }

  /** The next batch of the run's chunks of one dataset: what a worker would be handed. */
  private nextChunks(dataset: Dataset, after: number) {
    return this.db
      .selectFrom('chunk')
      .select(['chunk_id', 'location_id', 'window_from', 'window_to'])
      .where('run_id', '=', this.runId)
      .where('dataset', '=', dataset)
      .where('chunk_id', '>', after)
      .orderBy('chunk_id')
      .limit(this.options.batch)
      .execute();
  }
}
