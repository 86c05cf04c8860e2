/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds (`120`) or an
 * HTTP-date. `undefined` when absent, unreadable, zero or in the past: such a header gives no
 * usable wait, and honouring `Retry-After: 0` has caused tight retry loops elsewhere (dlt #4036),
 * so the caller's own backoff applies instead.
 */
export function parseRetryAfter(
  header: string | readonly string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1000;
    return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
  }
  // Only HTTP-dates (`Wed, 21 Oct 2015 07:28:00 GMT`); Date.parse would read many other things.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const ms = at - nowMs;
  return ms > 0 ? Math.ceil(ms) : undefined;
}
