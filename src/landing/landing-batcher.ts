import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import type { ChunkLanding, LandingResult } from '../ledger/landing-decision.js';
import type { FactWriter } from './fact-writer.js';
import type { StagedLanding } from './stage-landing.js';
import { inSpan, type TraceParent, type TraceSpan } from '../tracing/tracing.js';

interface Pending {
  readonly landing: StagedLanding;
  readonly resolve: (result: LandingResult) => void;
  readonly reject: (e: unknown) => void;
  /** The chunk's `envdata.landing` span, linked to its batch's transaction. */
  readonly span: TraceSpan;
}

/**
 * Group commit for landings: chunks fetched at about the same time by one worker process land
 * together, in one transaction with one statement per table, instead of one transaction each.
 * Each chunk stays all-or-nothing (a failed batch lands none of its chunks); a failed batch is
 * retried chunk by chunk, so one bad chunk cannot fail its neighbours. Each landing is staged
 * (its body compressed for the archive) as it arrives, while the batch before commits.
 */
export class LandingBatcher {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Landings being staged: not pending yet, but `drain` waits for them too. */
  private readonly staging = new Set<Promise<StagedLanding>>();

  constructor(
    private readonly writer: FactWriter,
    private readonly options: { readonly maxBatch: number; readonly maxWaitMs: number },
  ) {}

  /**
   * Resolves with what the ledger made of the chunk once its landing is committed. Traced: the
   * chunk's `envdata.landing` span (staging, the wait for its batch, the commit), with
   * `envdata.stage` under it; the batch's transaction is a trace of its own, the chunks' landing
   * spans and it linked both ways (`flush`).
   */
  land(unstaged: ChunkLanding, parent?: TraceParent): Promise<LandingResult> {
    return inSpan(
      'envdata.landing',
      async (span) => {
        const staging = inSpan('envdata.stage', () => this.writer.stage(unstaged), {
          parent: span.scope,
        });
        this.staging.add(staging);
        let landing: StagedLanding;
        try {
          landing = await staging;
        } finally {
          this.staging.delete(staging);
        }
        const result = await new Promise<LandingResult>((resolve, reject) => {
          this.pending.push({ landing, resolve, reject, span });
          if (this.pending.length >= this.options.maxBatch) this.flushSoon(0);
          else this.flushSoon(this.options.maxWaitMs);
        });
        span.setAttributes({ 'envdata.landing.state': result.state });
        return result;
      },
      {
        parent,
        attributes: { 'envdata.chunk.id': unstaged.chunkId, 'envdata.dataset': unstaged.dataset },
      },
    );
  }

  private flushSoon(ms: number): void {
    if (this.timer && ms > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const batch = this.pending.splice(0);
      if (batch.length === 0) return;
      // Batches of different chunks touch disjoint rows, so they may commit side by side.
      const flushing = this.flush(batch).finally(() => this.inFlight.delete(flushing));
      this.inFlight.add(flushing);
    }, ms);
  }

  /** Lands `batch` in one transaction, in a trace of its own linked to each chunk's landing. */
  private flush(batch: Pending[]): Promise<void> {
    return inSpan(
      'envdata.landing.transaction',
      async (span) => {
        const ref = span.ref();
        for (const b of batch) {
          b.span.link(ref);
          b.span.setAttributes({ 'envdata.landing.batch_size': batch.length });
        }
        await this.commit(batch, span);
      },
      {
        root: true,
        links: batch.map((b) => b.span.ref()),
        attributes: { 'db.system.name': 'postgresql', 'envdata.landing.batch_size': batch.length },
      },
    );
  }

  private async commit(batch: Pending[], span: TraceSpan): Promise<void> {
    try {
      const { results } = await this.writer.land(
        batch.map((b) => b.landing),
        span,
      );
      batch.forEach((b, i) => b.resolve(results[i]!));
    } catch (error) {
      // Cancelled on the server (the shutdown deadline): no chunk of it was refused, and landed
      // one by one each would wait again for what the batch waited for.
      if (batch.length === 1 || hasSqlState(error, SQLSTATE.queryCanceled)) {
        for (const b of batch) b.reject(error);
        return;
      }
      for (const b of batch) {
        await this.writer.land([b.landing]).then((s) => b.resolve(s.results[0]!), b.reject);
      }
    }
  }

  /** Lands what is waiting now, and what is being staged. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.staging]);
    if (this.pending.length > 0) this.flushSoon(0);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.inFlight);
  }
}
