import { SQLSTATE, hasSqlState } from '../errors/pg-errors.js';
import type { ChunkLanding, LandingResult } from '../ledger/landing-decision.js';
import type { FactWriter } from './fact-writer.js';
import type { StagedLanding } from './stage-landing.js';

interface Pending {
  readonly landing: StagedLanding;
  readonly resolve: (result: LandingResult) => void;
  readonly reject: (e: unknown) => void;
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

  /** Resolves with what the ledger made of the chunk once its landing is committed. */
  async land(unstaged: ChunkLanding): Promise<LandingResult> {
    const staging = this.writer.stage(unstaged);
    this.staging.add(staging);
    let landing: StagedLanding;
    try {
      landing = await staging;
    } finally {
      this.staging.delete(staging);
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ landing, resolve, reject });
      if (this.pending.length >= this.options.maxBatch) this.flushSoon(0);
      else this.flushSoon(this.options.maxWaitMs);
    });
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

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const { results } = await this.writer.land(batch.map((b) => b.landing));
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
