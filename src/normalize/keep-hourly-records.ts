import type { ParsedPayload } from '../service/models.js';
import type { Window } from '../types.js';
import type { NormalizeStats, QuarantinedRecord } from './fact-rows.js';
import { hourOf } from './hour-of.js';

export interface HourlyRecords<TRecord> extends NormalizeStats {
  /** One record per UTC hour (epoch ms of the hour → record), in payload order. */
  readonly byHour: ReadonlyMap<number, TRecord>;
  /** The parser's rejects and the records `validate` refused, with their reasons. */
  readonly quarantined: readonly QuarantinedRecord[];
}

/**
 * The shared first step of every normalization: quarantine what the parser rejected and what
 * `validate` refuses, drop records whose hour falls outside `window`, and keep one record per
 * hour (a repeated hour keeps the later record).
 */
export function keepHourlyRecords<TRecord extends { readonly at: Date }>(
  payload: ParsedPayload<TRecord>,
  window: Window | undefined,
  validate: (record: TRecord) => string | undefined,
): HourlyRecords<TRecord> {
  const quarantined: QuarantinedRecord[] = payload.rejected.map((r) => ({
    recordIndex: r.index,
    raw: r.raw,
    reason: r.reason,
  }));
  const byHour = new Map<number, TRecord>();
  let outsideWindow = 0;
  let duplicateHours = 0;
  payload.records.forEach((record, index) => {
    const problem = Number.isNaN(record.at.getTime())
      ? 'record has no valid timestamp'
      : validate(record);
    if (problem !== undefined) {
      quarantined.push({ recordIndex: index, raw: record, reason: problem });
      return;
    }
    const hour = hourOf(record.at).getTime();
    if (window && (hour < window.from.getTime() || hour >= window.to.getTime())) {
      outsideWindow++;
      return;
    }
    if (byHour.has(hour)) duplicateHours++;
    byHour.set(hour, record);
  });
  return { byHour, quarantined, outsideWindow, duplicateHours };
}
