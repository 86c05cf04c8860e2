/** Enough evidence that a run is talking to the wrong address. */
export interface WrongAddressVerdict {
  readonly answers: number;
  readonly suspicious: number;
}

/**
 * Watches, per run, whether the service's answers look like a wrong base address: a 404 ("not
 * covered") or a body that is not the service's. One such answer is the service speaking about
 * a place; most answers of a run being such is a wrong `ENVDATA_BASE_URL`. Judged over the last
 * `window` answers of each run seen by this process: at least `minSuspicious` suspicious ones
 * and more than half. Once a run is judged, it stays judged.
 */
export class WrongAddressGuard {
  private readonly runs = new Map<number, boolean[]>();
  private readonly judged = new Map<number, WrongAddressVerdict>();

  constructor(
    private readonly window = 20,
    private readonly minSuspicious = 5,
  ) {}

  /** Records one answer; returns the verdict when the run looks misaddressed. */
  observe(runId: number, suspicious: boolean): WrongAddressVerdict | undefined {
    const judged = this.judged.get(runId);
    if (judged) return judged;
    const seen = this.runs.get(runId) ?? [];
    seen.push(suspicious);
    if (seen.length > this.window) seen.shift();
    this.runs.set(runId, seen);
    const count = seen.filter(Boolean).length;
    if (count >= this.minSuspicious && count * 2 > seen.length) {
      const verdict = { answers: seen.length, suspicious: count };
      this.judged.set(runId, verdict);
      this.runs.delete(runId);
      return verdict;
    }
    return undefined;
  }
}
