import type { Config } from '../config/config.js';
import type { AdmissionStores } from './admission-stores.js';
import { CallBudget, queueLimiter, splitRateLimits } from './call-budget.js';
import { CallPacer, type PacedCall } from './call-pacer.js';
import { pacingError } from './pacing-error.js';
import { QuotaGate, type QuotaHold, type QuotaUse } from './quota-gate.js';
import { quotaHoldReason } from './quota-hold-reason.js';
import { inSpan, type TraceParent } from '../tracing/tracing.js';
import { ThrottleBackoff } from './throttle-backoff.js';

/** A call asking to be made. */
export interface AdmissionCall {
  /**
   * Whose call it is: the sync's may take the quota's reserve. Read once, before anything is
   * counted, and only when a quota is configured (a function is not called otherwise).
   */
  readonly use: QuotaUse | (() => Promise<QuotaUse>);
  /** Whether the call budget counts it: a chunk's call does, a snapshot's does not. */
  readonly budgeted: boolean;
  /** The span of the job making it (`envdata.admission.wait` goes under it). */
  readonly trace?: TraceParent | undefined;
}

/** A call admitted: it goes now; tell its pace when its answer came (a refusal: `refused`). */
export type Permit = Pick<PacedCall, 'answered' | 'throttled'>;

/** What `admit` decided: a permit, or why the call waits. No call is made but with a permit. */
export type Admitted =
  | { readonly kind: 'permit'; readonly permit: Permit }
  /** No slot of the pace: the worker is stopping (ABORTED), or the slots' backend failed. */
  | { readonly kind: 'pace'; readonly error: Error }
  /** A calendar quota (or the budget's month) is spent until `hold.untilMs`. */
  | { readonly kind: 'quota'; readonly hold: QuotaHold }
  /** A rule of the call budget is spent: every worker waits `ms`. */
  | { readonly kind: 'budget'; readonly ms: number };

/** Why every worker pauses: a throttled answer, or a budget or quota spent. */
export type PauseReason = 'throttled' | 'budget';

/** The policies `Admission` runs, and what pauses every worker. */
export interface AdmissionPolicies {
  /** Spaces the calls of the tightest rate-limit rule, when it is paced (`CallPacer`). */
  readonly pacer?: CallPacer;
  /** The calendar quotas and the sync's reserve (ENVDATA_QUOTA, ENVDATA_SYNC_RESERVE). */
  readonly quota?: Pick<QuotaGate, 'enabled' | 'take' | 'spent'>;
  /** The rate-limit rules neither the pacer nor BullMQ's limiter keeps. */
  readonly budget?: Pick<CallBudget, 'take'>;
  /** How long a throttled answer pauses every worker: one per process, shared by its job kinds. */
  readonly throttle: Pick<ThrottleBackoff, 'pauseMs' | 'reset'>;
  /**
   * Pauses every worker of the queue for `ms` and puts the job back, attempts untouched
   * (BullMQ's `worker.rateLimit`, then its `RateLimitError`).
   */
  readonly pauseAll: (ms: number, reason: PauseReason) => Promise<never>;
  /** BullMQ's limiter (`queueLimiter`); one that binds nothing when absent. */
  readonly limiter?: { readonly max: number; readonly duration: number };
}

/** A permit when nothing is paced. */
const UNPACED: Permit = { answered: () => {}, throttled: () => {} };

/**
 * The one door a call of the service goes through, for every worker of every host: `admit` runs
 * the policies in order — the pace's slot (`CallPacer`), then the calendar quota with the sync's
 * reserve (`QuotaGate`), then the call budget (`CallBudget`) — and returns a permit or why the
 * call waits. The quota and the budget are counted once the slot has come, just before the call:
 * a call waiting for its slot across midnight counts in the day it reaches the service; refused,
 * its slot goes back. What the service answers comes back through the same door: a refusal
 * (`refused`: a 429, the service's own "quota spent"), a throttled answer's pause (`pauseMs`,
 * `pause`), a call that got through (`through`).
 *
 * @example
 * ```ts
 * const admission = Admission.open(admissionStores(app.queues), config, pauseAll);
 * const admitted = await admission.admit({ use: 'sync', budgeted: false }, stopping);
 * if (admitted.kind === 'permit') await call().finally(() => admitted.permit.answered());
 * ```
 */
export class Admission {
  constructor(private readonly policies: AdmissionPolicies) {}

  /** The policies `config` sets (ENVDATA_RATE_LIMIT, ENVDATA_QUOTA, ENVDATA_MAX_PAUSE). */
  static open(
    stores: AdmissionStores,
    config: Pick<Config, 'quota' | 'rateLimits' | 'worker'>,
    pauseAll: AdmissionPolicies['pauseAll'],
  ): Admission {
    const { limiter, others } = splitRateLimits(config.rateLimits);
    // The tightest rule is paced at each call when it can be (see CallPacer); BullMQ's limiter
    // then binds nothing and only carries the pauses of 429s.
    const pacer = CallPacer.for(stores.windows, limiter);
    return new Admission({
      budget: new CallBudget(stores.windows, others),
      quota: new QuotaGate(stores.quota, config.quota),
      ...(pacer && { pacer }),
      throttle: new ThrottleBackoff(Math.random, config.worker.maxPauseMs),
      pauseAll,
      limiter: queueLimiter(pacer ? undefined : limiter),
    });
  }

  /** Spaces this process's calls of the tightest rule, when it is paced: its margin is measured. */
  get pacer(): CallPacer | undefined {
    return this.policies.pacer;
  }

  /** BullMQ's limiter: the tightest rule when it is not paced, else one that binds nothing. */
  get limiter(): { readonly max: number; readonly duration: number } {
    return this.policies.limiter ?? queueLimiter(undefined);
  }

  /**
   * Whether `call` may be made now, waiting for its slot of the pace first. Rejects with what the
   * quota's or the budget's backend threw (the slot given back), or with `call.use`'s error.
   */
  admit(call: AdmissionCall, signal?: AbortSignal): Promise<Admitted> {
    // Traced: `envdata.admission.wait`, what the call waited, and why it may not go when not.
    return inSpan(
      'envdata.admission.wait',
      async (span) => {
        const admitted = await this.decide(call, signal);
        if (span.recording) span.setAttributes(admittedAttributes(admitted));
        return admitted;
      },
      { parent: call.trace },
    );
  }

  private async decide(call: AdmissionCall, signal?: AbortSignal): Promise<Admitted> {
    const { pacer, quota } = this.policies;
    const use = !quota?.enabled
      ? undefined
      : typeof call.use === 'string'
        ? call.use
        : await call.use();
    // The quota and the budget are counted once the slot has come, inside the pacer's last look
    // at the call's lateness: a slow count moves the call to a later slot rather than sending it
    // late into its window.
    let counted: { refused?: Admitted; error?: unknown } = {};
    const count = async (): Promise<boolean> => {
      try {
        const refused = await this.count(use, call.budgeted);
        counted = refused === undefined ? {} : { refused };
      } catch (error) {
        counted = { error };
      }
      return counted.refused === undefined && !('error' in counted);
    };
    let paced: PacedCall | undefined;
    try {
      paced = pacer ? await pacer.acquire(signal, count) : (await count(), undefined);
    } catch (thrown) {
      return { kind: 'pace', error: pacingError(thrown, signal) };
    }
    if ('error' in counted) throw counted.error;
    if (counted.refused) return counted.refused;
    return { kind: 'permit', permit: paced ?? UNPACED };
  }

  /** Counts the call in the quota (`use`, when one is configured) and the budget. */
  private async count(use: QuotaUse | undefined, budgeted: boolean): Promise<Admitted | undefined> {
    const { quota, budget } = this.policies;
    if (use !== undefined && quota) {
      const hold = await quota.take(use);
      if (hold) return { kind: 'quota', hold };
    }
    const ms = budgeted && budget ? await budget.take() : 0;
    return ms > 0 ? { kind: 'budget', ms } : undefined;
  }

  /**
   * The service refused `permit`'s call with `code`: a 429 (RATE_LIMITED) widens the pace's
   * margin at once (`PacedCall.throttled`); its "quota spent" (QUOTA_EXCEEDED) without a
   * `Retry-After` marks the tightest window spent for every worker (`QuotaGate.spent`) and is
   * returned, so none asks the service again before the reset. `undefined` otherwise, or
   * without a quota.
   */
  async refused(
    permit: Permit,
    code: string,
    retryAfterMs: number | undefined,
  ): Promise<QuotaHold | undefined> {
    if (code === 'RATE_LIMITED') permit.throttled();
    const { quota } = this.policies;
    if (code !== 'QUOTA_EXCEEDED' || retryAfterMs !== undefined || !quota?.enabled)
      return undefined;
    return quota.spent();
  }

  /** The pause of every worker for one throttled answer (`ThrottleBackoff.pauseMs`). */
  pauseMs(
    policy: { readonly baseMs: number; readonly capMs: number },
    retryAfterMs?: number,
  ): number {
    return this.policies.throttle.pauseMs(policy, retryAfterMs);
  }

  /** A call got through: the next throttled answer starts a new burst. */
  through(): void {
    this.policies.throttle.reset();
  }

  /** Pauses every worker for `ms` and puts the job back, attempts untouched. */
  pause(ms: number, reason: PauseReason): Promise<never> {
    return this.policies.pauseAll(ms, reason);
  }
}

/** What an admission span says: the decision, and its reason when the call waits. */
function admittedAttributes(admitted: Admitted): Record<string, string | number | undefined> {
  switch (admitted.kind) {
    case 'permit':
      return { 'envdata.admission.result': 'permit' };
    case 'pace':
      return {
        'envdata.admission.result': 'pace',
        'envdata.admission.reason':
          (admitted.error as { code?: string }).code ?? admitted.error.name,
      };
    case 'quota':
      return {
        'envdata.admission.result': 'quota',
        'envdata.admission.reason': quotaHoldReason(admitted.hold),
        'envdata.admission.until': new Date(admitted.hold.untilMs).toISOString(),
      };
    case 'budget':
      return {
        'envdata.admission.result': 'budget',
        'envdata.admission.reason': 'call budget spent',
        'envdata.admission.pause_ms': admitted.ms,
      };
  }
}
