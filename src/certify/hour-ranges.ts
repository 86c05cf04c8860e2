import type { CanonicalHour } from './read-canonical-hours.js';
import type { HourRange, HourStatus } from './completeness-statement.js';

/** A range being gathered: its answers as envdata.answer ids until they are resolved. */
export interface OpenRange {
  readonly from: string;
  to: string;
  hours: number;
  readonly status: HourStatus;
  readonly answerIds: Set<string>;
  untracedRows: number;
}

/**
 * Gathers consecutive hours into maximal ranges of one status, each with the answers behind
 * its rows: `add` every hour of the range in order with its status and end hour.
 */
export class HourRanges {
  readonly ranges: OpenRange[] = [];

  add(hour: CanonicalHour, status: HourStatus, end: string): void {
    let last = this.ranges.at(-1);
    if (last?.status !== status) {
      last = { from: hour.hour, to: end, hours: 0, status, answerIds: new Set(), untracedRows: 0 };
      this.ranges.push(last);
    }
    last.to = end;
    last.hours += 1;
    for (const id of hour.answerIds) last.answerIds.add(id);
    last.untracedRows += hour.untracedRows;
  }
}

/** What an answer is to a certificate: its run and its body's digest. */
export interface AnswerOrigin {
  readonly runId: number | null;
  readonly bodySha256: string;
}

/** The reasons written for a status other than quarantined (which has the refusals' own). */
const STATUS_REASONS: Readonly<Record<HourStatus, string | undefined>> = {
  landed: undefined,
  quarantined: undefined,
  no_data: 'the latest answer was "Data not available!"',
  missing_upstream: 'the service never sent these hours, even when asked again',
  not_covered: 'the service answered 404 (location not covered)',
  not_fetched: 'nothing asked yet, or nothing recorded',
  outside_history: "outside the dataset's history (before its first hour, or not complete yet)",
};

/** Most quarantine reasons listed for one range. */
const MAX_REASONS = 20;

/** The ranges as the predicate lists them, answers resolved, reasons added. */
export function finishRanges(
  ranges: readonly OpenRange[],
  answers: ReadonlyMap<string, AnswerOrigin>,
  quarantineReasons: (from: string, to: string) => readonly string[],
): HourRange[] {
  return ranges.map((r) => {
    const origins = [...r.answerIds].flatMap((id) => {
      const origin = answers.get(id);
      return origin ? [origin] : [];
    });
    const fixed = STATUS_REASONS[r.status];
    return {
      from: r.from,
      to: r.to,
      hours: r.hours,
      status: r.status,
      reasons:
        r.status === 'quarantined'
          ? quarantineReasons(r.from, r.to).slice(0, MAX_REASONS)
          : fixed === undefined
            ? []
            : [fixed],
      runIds: [...new Set(origins.flatMap((o) => (o.runId === null ? [] : [o.runId])))].sort(
        (a, b) => a - b,
      ),
      answerDigests: [...new Set(origins.map((o) => o.bodySha256))].sort(),
      untracedRows: r.untracedRows,
    };
  });
}
