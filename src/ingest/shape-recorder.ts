import type { Kysely } from 'kysely';
import { datasetDefinition } from '../datasets/registry.js';
import { countShapeAnswers, type ShapeAnswers } from '../ledger/count-shape-answers.js';
import { isUpstreamShapeAccepted, recordUpstreamShape } from '../ledger/record-upstream-shape.js';
import { readShareUnits } from '../ledger/share-unit.js';
import type { Logger } from '../logging/create-logger.js';
import type { MetricsObserver } from '../metrics/metrics-observer.js';
import { toldShareUnits, type ShareUnitVerdicts } from '../normalize/decide-share-unit.js';
import type { ParsedPayload } from '../service/models.js';
import type { Dataset, ShareUnits } from '../types.js';
import { answerShapeOf } from '../upstream/answer-shape.js';
import { shapeDigest } from '../upstream/shape-digest.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/** One answer to take the shape of. */
export interface AnswerToShape {
  readonly dataset: Dataset;
  readonly source: AnswerSource;
  readonly payload: ParsedPayload<unknown>;
  /** What its share fields' values said of their units (`shareUnitOf`); none for pollen. */
  readonly verdicts?: ShareUnitVerdicts | undefined;
  /** History: the chunk it answered (its body is archived under it). */
  readonly chunkId?: number | undefined;
}

/** An answer's shape, and whether it is accepted (the baseline, or accepted since). */
export interface ObservedShape {
  readonly digest: string;
  readonly accepted: boolean;
}

export interface ShapeRecorderOptions {
  /** How often the answers counted in memory are added to the ledger; default 5 s. */
  readonly flushMs?: number;
  /** Told of each answer's shape (`envdata_upstream_answers_total`). */
  readonly observer?: Pick<MetricsObserver, 'answerShape'>;
  readonly logger?: Logger;
  /**
   * What happens to the answers of `dataset`'s shapes not accepted, in the notification of a
   * new shape; default: its known fields land.
   */
  readonly consequence?: (dataset: Dataset) => string;
}

/**
 * Takes the shape of every answer a process receives (`answerShapeOf`) and keeps the ledger's
 * `envdata.upstream_shape` up to date, cheaply: a shape this process knows costs no statement
 * (its answers are counted in memory and added every `flushMs`, one statement for all shapes);
 * a shape new to the process is recorded once (`recordUpstreamShape`: the notification of a
 * new shape, once whatever the number of workers). A shape not accepted is asked of the ledger
 * at each answer, so an `envdata upstream accept` is seen by the next answer.
 */
export class ShapeRecorder {
  private readonly accepted = new Map<string, boolean>();
  /** The unit each share field last told, by `dataset source`. */
  private readonly told = new Map<string, ShareUnits>();
  private pending = new Map<string, { answers: number; lastSeenAt: Date }>();
  private lastFlush = Date.now();
  private flushing: Promise<void> | undefined;
  private readonly flushMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: ShapeRecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 5_000;
  }

  /**
   * The shape of `answer`, recorded; `undefined` for an answer with nothing to compare (no
   * readable body, or no record at all).
   */
  async observe(answer: AnswerToShape): Promise<ObservedShape | undefined> {
    const { dataset, source, payload } = answer;
    if (payload.document === undefined) return undefined;
    if (payload.records.length === 0 && payload.rejected.length === 0) return undefined;
    const units = answer.verdicts ? await this.unitsOf(dataset, source, answer.verdicts) : {};
    const maps = datasetDefinition(dataset).answerMaps;
    const shape = answerShapeOf(payload.document, { maps, units });
    const digest = shapeDigest(dataset, source, shape);
    const now = new Date();
    const count = this.pending.get(digest);
    if (count) {
      count.answers += 1;
      count.lastSeenAt = now;
    } else this.pending.set(digest, { answers: 1, lastSeenAt: now });
    this.options.observer?.answerShape?.(dataset, source, digest);

    let accepted = this.accepted.get(digest);
    if (accepted === undefined) {
      const standing = await recordUpstreamShape(
        this.db,
        {
          dataset,
          source,
          digest,
          shape,
          seenAt: now,
          sampleChunkId: answer.chunkId,
          body: payload.rawBody,
        },
        this.options.consequence?.(dataset) ?? 'its known fields land',
      );
      accepted = standing.accepted;
      if (standing.created && !accepted) {
        this.options.logger?.warn(
          { dataset, source, shape: digest },
          'the service answered in a shape never seen before: see envdata upstream',
        );
      }
    } else if (!accepted) {
      accepted = await isUpstreamShapeAccepted(this.db, digest);
    }
    this.accepted.set(digest, accepted);
    if (now.getTime() - this.lastFlush >= this.flushMs) await this.flush();
    return { digest, accepted };
  }

  /** Adds the answers counted since the last time to the ledger (at most one flush at a time). */
  flush(): Promise<void> {
    this.flushing ??= (async () => {
      this.lastFlush = Date.now();
      const counts: ShapeAnswers[] = [...this.pending].map(([digest, c]) => ({ digest, ...c }));
      this.pending = new Map();
      try {
        await countShapeAnswers(this.db, counts);
      } catch (error) {
        // Counted again at the next flush: a count is late, never lost while the process lives.
        for (const c of counts) this.add(c);
        this.options.logger?.warn({ err: error }, 'could not count answers by shape; will retry');
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private add(c: ShapeAnswers): void {
    const now = this.pending.get(c.digest);
    if (now) now.answers += c.answers;
    else this.pending.set(c.digest, { answers: c.answers, lastSeenAt: c.lastSeenAt });
  }

  /**
   * The unit of each share field for the shape: the one the answer told, else the one that
   * field last told (this process's, else the ledger's `envdata.share_unit`, read once), so a
   * field that cannot tell (a dry day's zeros) makes no new shape.
   */
  private async unitsOf(
    dataset: Dataset,
    source: AnswerSource,
    verdicts: ShareUnitVerdicts,
  ): Promise<ShareUnits> {
    const key = `${dataset} ${source}`;
    const told = toldShareUnits(verdicts);
    let known = this.told.get(key);
    if (known === undefined && Object.keys(told).length < Object.keys(verdicts).length) {
      known = await readShareUnits(this.db, dataset, source);
    }
    const units = { ...known, ...told };
    this.told.set(key, units);
    return units;
  }
}
