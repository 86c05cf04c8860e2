/**
 * The longest wait a `Retry-After` may ask for and be believed: a day (a daily quota resets
 * within one). Longer is a fault somewhere between here and the service (a header in
 * milliseconds, a clock years off, an absurd count), and one such answer must not stop every
 * worker for years.
 */
export const MAX_PLAUSIBLE_RETRY_AFTER_MS = 86_400_000;

/** What a `Retry-After` header says, read (`readRetryAfter`). */
export interface RetryAfter {
  /** The wait asked for, in ms; `undefined` when absent, unreadable, zero, past or implausible. */
  readonly ms: number | undefined;
  /** The header as sent (trimmed, clipped) when it asked for more than a day: not believed. */
  readonly implausible?: string;
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds (`120`) or an
 * HTTP-date. `undefined` when absent, unreadable, zero or in the past: such a header gives no
 * usable wait, and honouring `Retry-After: 0` has caused tight retry loops elsewhere (dlt #4036),
 * so the caller's own backoff applies instead. `undefined` too beyond a day
 * (`MAX_PLAUSIBLE_RETRY_AFTER_MS`): `readRetryAfter` says when that happened.
 */
export function parseRetryAfter(
  header: string | readonly string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  return readRetryAfter(header, nowMs).ms;
}

/**
 * `parseRetryAfter`, and the header itself when it asked for more than a day, so that the caller
 * can say once that it was not believed.
 *
 * @example readRetryAfter('999999999') // { ms: undefined, implausible: '999999999' }
 */
export function readRetryAfter(
  header: string | readonly string[] | undefined,
  nowMs: number = Date.now(),
): RetryAfter {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (value === undefined || value === '') return { ms: undefined };
  const ms = waitOf(value, nowMs);
  if (ms === Number.POSITIVE_INFINITY || (ms !== undefined && ms > MAX_PLAUSIBLE_RETRY_AFTER_MS)) {
    return { ms: undefined, implausible: value.slice(0, 64) };
  }
  return { ms };
}

/** The wait `value` asks for; +∞ for a count too large to hold. */
function waitOf(value: string, nowMs: number): number | undefined {
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1000;
    if (!Number.isSafeInteger(ms)) return Number.POSITIVE_INFINITY;
    return ms > 0 ? ms : undefined;
  }
  // Only HTTP-dates (`Wed, 21 Oct 2015 07:28:00 GMT`); Date.parse would read many other things.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const ms = at - nowMs;
  return ms > 0 ? Math.ceil(ms) : undefined;
}
