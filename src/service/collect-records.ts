import type { RejectedRecord } from './models.js';
import { RecordRejection } from './record-fields.js';

/**
 * Parses each raw record with `parseRecord`; a record it rejects goes to `rejected` with its index,
 * raw value and reason, and the others are kept. Errors other than `RecordRejection` are bugs and
 * propagate.
 */
export function collectRecords<TRecord>(
  raws: readonly unknown[],
  parseRecord: (raw: unknown) => TRecord,
): { records: TRecord[]; rejected: RejectedRecord[] } {
  const records: TRecord[] = [];
  const rejected: RejectedRecord[] = [];
  for (let index = 0; index < raws.length; index += 1) {
    const raw = raws[index];
    try {
      records.push(parseRecord(raw));
    } catch (error) {
      if (!(error instanceof RecordRejection)) throw error;
      rejected.push({ index, raw, reason: error.message });
    }
  }
  return { records, rejected };
}
