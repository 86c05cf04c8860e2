import type { Kysely } from 'kysely';
import type { ClaimedChunk } from '../ledger/claim-chunk.js';
import { recordWindowAnswer } from '../ledger/history-window.js';
import type { Logger } from '../logging/create-logger.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { WindowKnowledge, WindowScope } from '../windows/learned-window.js';

/**
 * Records what the service's answers teach of the history window, for the key and address of
 * `scope` (`envdata.history_window`): each window answered, or refused as too long. Remembers the
 * longest window it recorded as accepted per dataset: a landing of a window no longer than it
 * teaches nothing, and costs no write.
 */
export class WindowLearner {
  private readonly recordedAccepted = new Map<Dataset, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly scope: WindowScope | undefined,
    private readonly log: Logger,
    /** Told when an answer taught a longer window or a refusal (the feeder may plan the next). */
    private readonly learned?: () => void,
  ) {}

  /**
   * Records what the answer to `chunk` teaches; returns what is known now, or `undefined` when
   * nothing was recorded (no scope, nothing new, or the write failed: it never fails the job).
   */
  async learn(
    chunk: ClaimedChunk,
    answer: 'accepted' | 'refused',
  ): Promise<WindowKnowledge | undefined> {
    const { scope } = this;
    if (!scope) return undefined;
    const hours = (chunk.window.to.getTime() - chunk.window.from.getTime()) / 3_600_000;
    if (answer === 'accepted' && hours <= (this.recordedAccepted.get(chunk.dataset) ?? 0)) {
      return undefined;
    }
    try {
      const known = await recordWindowAnswer(this.db, scope, chunk.dataset, answer, hours);
      if (known.acceptedHours === null) this.recordedAccepted.delete(chunk.dataset);
      else this.recordedAccepted.set(chunk.dataset, known.acceptedHours);
      this.learned?.();
      return known;
    } catch (error) {
      this.log.warn({ err: error, chunkId: chunk.chunkId }, 'could not record the history window');
      return undefined;
    }
  }
}
