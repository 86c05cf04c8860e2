/**
 * The history hours the simulator has answered, per series (a dataset and a site): what
 * `ReviseOption` needs to tell an hour's first answer from a later one. Hours are kept as sorted,
 * disjoint spans, so a backfilled year is one span, whatever its chunks.
 *
 * Bounded: past `maxSeries` series it forgets every series (as `BoundedCache` does), and a series
 * past `maxSpans` spans forgets its earliest; a forgotten hour's next answer counts as its first.
 */
export class ServedHours {
  /** Per series, spans as `[first, last, first, last, …]`: sorted, apart by at least one hour. */
  readonly #spans = new Map<string, number[]>();

  constructor(
    readonly maxSeries = 100_000,
    readonly maxSpans = 10_000,
  ) {}

  /** Whether `hour` of `series` was answered before. */
  has(series: string, hour: number): boolean {
    const spans = this.#spans.get(series);
    if (spans === undefined) return false;
    let lo = 0;
    let hi = spans.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (hour < spans[2 * mid]!) hi = mid - 1;
      else if (hour > spans[2 * mid + 1]!) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** Records that `hours` (epoch hours, in any order) of `series` were answered. */
  add(series: string, hours: readonly number[]): void {
    if (hours.length === 0) return;
    let spans = this.#spans.get(series);
    if (spans === undefined) {
      if (this.#spans.size >= this.maxSeries) this.#spans.clear();
      spans = [];
      this.#spans.set(series, spans);
    }
    const sorted = [...hours].sort((a, b) => a - b);
    let first = sorted[0]!;
    let last = first;
    for (let i = 1; i < sorted.length; i++) {
      const hour = sorted[i]!;
      if (hour <= last + 1) {
        last = Math.max(last, hour);
        continue;
      }
      spans = insertSpan(spans, first, last);
      first = hour;
      last = hour;
    }
    spans = insertSpan(spans, first, last);
    if (spans.length > 2 * this.maxSpans) spans = spans.slice(spans.length - 2 * this.maxSpans);
    this.#spans.set(series, spans);
  }

  /** Forgets every answered hour. */
  clear(): void {
    this.#spans.clear();
  }
}

/** `spans` with `[first, last]` merged in (with the spans it overlaps or touches). */
function insertSpan(spans: number[], first: number, last: number): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < spans.length && spans[i + 1]! < first - 1) {
    out.push(spans[i]!, spans[i + 1]!);
    i += 2;
  }
  let a = first;
  let b = last;
  while (i < spans.length && spans[i]! <= last + 1) {
    a = Math.min(a, spans[i]!);
    b = Math.max(b, spans[i + 1]!);
    i += 2;
  }
  out.push(a, b);
  while (i < spans.length) {
    out.push(spans[i]!, spans[i + 1]!);
    i += 2;
  }
  return out;
}
