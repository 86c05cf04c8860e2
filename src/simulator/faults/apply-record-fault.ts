import type { RecordFaultKind } from './fault-settings.js';

/** A record fault drawn for one request: its kind and how many hours it touches. */
export interface RecordFault {
  readonly kind: RecordFaultKind;
  /** Hours for `short`, `conflict`, `duplicate` and the hostile kinds; ignored by `empty`. */
  readonly hours: number;
}

/**
 * Applies a record fault to the hourly records of a history answer, in window order, before they
 * are rendered (see `FAULT_KINDS` for what each kind models):
 *
 * - `short`: without the last `hours` records (none left when `hours` ≥ their number).
 * - `empty`: no records.
 * - `conflict`: the records, then `conflicting(record)` for each of the first `hours`.
 * - `duplicate`: the records, then each of the first `hours` again.
 * - `ambiguous`: each record as `ambiguous(record)` (records without shares: as they are).
 *
 * @example applyRecordFault([h0, h1, h2], { kind: 'conflict', hours: 1 }, bump) // [h0, h1, h2, bump(h0)]
 */
export function applyRecordFault<T>(
  records: readonly T[],
  fault: RecordFault,
  conflicting: (record: T) => T,
  ambiguous: (record: T) => T = (record) => record,
): T[] {
  switch (fault.kind) {
    case 'short':
      return records.slice(0, Math.max(0, records.length - fault.hours));
    case 'empty':
      return [];
    case 'conflict':
      return [...records, ...records.slice(0, fault.hours).map(conflicting)];
    case 'duplicate':
      return [...records, ...records.slice(0, fault.hours)];
    case 'ambiguous':
      return records.map(ambiguous);
    default:
      // Hostile kinds rewrite rendered records (`makeRecordsHostile`), not which hours there are.
      return [...records];
  }
}
