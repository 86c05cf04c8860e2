import type { RateLimitRule } from '../config/rate-limit.js';
import { estimateDurationMs } from './estimate-plan.js';

/** A calendar window that caps calls: its cap, its use now and its next reset. */
export interface AllowanceWindow {
  /** Calls the window allows this use (the day's less the sync's reserve for a backfill). */
  readonly cap: number;
  /** Calls counted in the current window; at or past `cap` (or refused by the service): none left. */
  readonly used: number;
  /** The real instant the current window ends, epoch ms. */
  readonly resetsAtMs: number;
  /** Real ms of one window after the current one (a quota day; an average month). */
  readonly lengthMs: number;
  /** Whose cap it is, as a run's hold names it: `quota (day)`, `quota (month)`, `budget (month)`. */
  readonly name: string;
}

/** What `expectedDuration` is given: the calls left and what paces and caps them. */
export interface ExpectedDurationInput {
  readonly calls: number;
  readonly rules: readonly RateLimitRule[];
  readonly nowMs: number;
  /** The daily quota (ENVDATA_QUOTA per day); absent: no daily cap. */
  readonly day?: AllowanceWindow | undefined;
  /** The month's quota or budget, the tighter; absent: no monthly cap. */
  readonly month?: AllowanceWindow | undefined;
}

/** How long the calls left take, and what of it is waiting for a reset. */
export interface ExpectedDuration {
  readonly calls: number;
  /** Real ms from now until the last call; `undefined`: never (a cap of 0). */
  readonly ms: number | undefined;
  /** Calls today's allowance (the day's and the month's room now) covers. */
  readonly coveredNow: number;
  /** The first reset the rest waits for; `undefined` when everything fits now. */
  readonly firstReset: { readonly atMs: number; readonly name: string } | undefined;
  /** Resets waited for in all (day or month). */
  readonly resets: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Windows walked at most: past it the calls are said to take forever (a cap of a few calls). */
const MAX_WINDOWS = 100_000;

/**
 * The one estimate of how long `calls` take from `nowMs` — used by dry runs, `plan`, `status`,
 * the `--wait` line and the console: at the rate limits, within what is left of today's
 * allowance (the daily quota and the month's quota or budget), then window after window from
 * each reset. A run that must wait for a reset is expected to end no sooner than that reset plus
 * the work left after it.
 */
export function expectedDuration(input: ExpectedDurationInput): ExpectedDuration {
  const { calls, rules, nowMs } = input;
  const day: Mutable<AllowanceWindow> | undefined = input.day ? { ...input.day } : undefined;
  const month: Mutable<AllowanceWindow> | undefined = input.month ? { ...input.month } : undefined;
  const room = (w: AllowanceWindow | undefined) =>
    w === undefined ? Infinity : Math.max(0, w.cap - w.used);
  let left = calls;
  let at = nowMs;
  let resets = 0;
  let coveredNow: number | undefined;
  let firstReset: ExpectedDuration['firstReset'];
  for (let i = 0; i < MAX_WINDOWS; i += 1) {
    const take = Math.min(left, room(day), room(month));
    coveredNow ??= take;
    left -= take;
    const doneAt = at + estimateDurationMs(take, rules);
    if (left === 0) return { calls, ms: doneAt - nowMs, coveredNow, firstReset, resets };
    // The window with no room left is waited for: the month's when it binds, else the day's.
    const waitFor = room(month) - take <= 0 && month ? month : day!;
    if (waitFor.cap <= 0) break;
    firstReset ??= { atMs: waitFor.resetsAtMs, name: waitFor.name };
    resets += 1;
    at = Math.max(doneAt, waitFor.resetsAtMs);
    for (const w of [day, month]) {
      if (w === undefined) continue;
      w.used = w === waitFor || w.resetsAtMs <= at ? 0 : w.used + take;
      while (w.resetsAtMs <= at) w.resetsAtMs += w.lengthMs;
    }
  }
  return { calls, ms: undefined, coveredNow: coveredNow ?? 0, firstReset, resets };
}
