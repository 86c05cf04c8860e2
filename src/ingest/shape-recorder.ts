import type { Kysely } from 'kysely';
import { datasetDefinition } from '../datasets/registry.js';
import { countShapeAnswers, type ShapeAnswers } from '../ledger/count-shape-answers.js';
import { freezeOnShape, readDriftPolicy } from '../ledger/drift-policy.js';
import { isUpstreamShapeAccepted, recordUpstreamShape } from '../ledger/record-upstream-shape.js';
import { readShareUnits } from '../ledger/share-unit.js';
import type { Logger } from '../logging/create-logger.js';
import type { MetricsObserver } from '../metrics/metrics-observer.js';
import { toldShareUnits, type ShareUnitVerdicts } from '../normalize/decide-share-unit.js';
import type { ParsedPayload } from '../service/models.js';
import type { Dataset, DriftPolicies, DriftPolicy, ShareUnits } from '../types.js';
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
  /**
   * What the answer's values do: `evolve` for an accepted shape or a snapshot (policies hold
   * history answers only: they are archived, a snapshot is not); else the dataset's policy
   * (`readDriftPolicy`), `quarantine` or `freeze` holding the answer back.
   */
  readonly policy: DriftPolicy;
}

export interface ShapeRecorderOptions {
  /** How often the answers counted in memory are added to the ledger; default 5 s. */
  readonly flushMs?: number;
  /** Told of each answer's shape (`envdata_upstream_answers_total`). */
  readonly observer?: Pick<MetricsObserver, 'answerShape'>;
  readonly logger?: Logger;
  /**
   * The drift policy of each dataset when envdata.yaml declared none (ENVDATA_DRIFT_POLICY);
   * default `evolve` for all.
   */
  readonly driftPolicy?: DriftPolicies;
}

/** What happens to the answers of a shape not accepted under `policy`, for the notification. */
export function consequenceOf(dataset: Dataset, policy: DriftPolicy): string {
  switch (policy) {
    case 'evolve':
      return 'its known fields land';
    case 'quarantine':
      return 'its hours are held, not in the warehouse, until the shape is accepted (then they land from the archive, no call)';
    case 'freeze':
      return `its hours are held and every ${dataset} call waits until the shape is accepted`;
  }
}

/**
 * Takes the shape of every answer a process receives (`answerShapeOf`) and keeps the ledger's
 * `envdata.upstream_shape` up to date, cheaply: a shape this process knows costs no statement
 * (its answers are counted in memory and added every `flushMs`, one statement for all shapes);
 * a shape new to the process is recorded once (`recordUpstreamShape`: the notification of a
 * new shape, once whatever the number of workers). A shape not accepted is asked of the ledger
 * at each answer, so an `envdata upstream accept` is seen by the next answer, and so is the
 * dataset's drift policy (`readDriftPolicy`); under `freeze` the shape freezes its dataset
 * (`freezeOnShape`).
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
    // Policies hold history answers only; read for a shape not known to be accepted (rare).
    const policyNow = async (): Promise<DriftPolicy> =>
      source === 'history'
        ? readDriftPolicy(this.db, dataset, this.options.driftPolicy?.[dataset] ?? 'evolve')
        : 'evolve';
    let policy: DriftPolicy | undefined;
    if (accepted === undefined) {
      policy = await policyNow();
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
        consequenceOf(dataset, policy),
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
    if (accepted) policy = 'evolve';
    else {
      policy ??= await policyNow();
      if (policy === 'freeze') await freezeOnShape(this.db, digest);
    }
    if (now.getTime() - this.lastFlush >= this.flushMs) await this.flush();
    return { digest, accepted, policy };
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
