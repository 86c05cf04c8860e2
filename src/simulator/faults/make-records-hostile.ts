import type { RecordFault } from './apply-record-fault.js';
import { isHostileRecordKind, type HostileRecordKind } from './fault-settings.js';

/** The dataset whose records are rewritten: their fields differ. */
export type HostileRecordDataset = 'pollen' | 'weather';

/** Length of the strings `long` writes: beyond any key Postgres can index (about 2,700 bytes). */
export const LONG_STRING_LENGTH = 9_000;

type JsonRecord = Record<string, unknown>;

/**
 * Rewrites the first `hours` rendered records (JSON text) of a history answer as `kind` says
 * (see `FAULT_KINDS`); the others are returned as they are. Only the records rewritten are
 * parsed, so the hot path of an answer without a fault is untouched.
 *
 * @example makeRecordsHostile(['{"time":1,…}', …], 'blank', 1, 'weather') // ['{}', …]
 */
export function makeRecordsHostile(
  records: readonly string[],
  kind: HostileRecordKind,
  hours: number,
  dataset: HostileRecordDataset,
): string[] {
  return records.map((text, i) =>
    i < hours ? JSON.stringify(rewrite(JSON.parse(text) as JsonRecord, kind, dataset)) : text,
  );
}

/** The records of a history answer as `fault` leaves them: rewritten if it is a hostile kind. */
export function withHostileFault(
  records: string[],
  fault: RecordFault | undefined,
  dataset: HostileRecordDataset,
): string[] {
  return fault !== undefined && isHostileRecordKind(fault.kind)
    ? makeRecordsHostile(records, fault.kind, fault.hours, dataset)
    : records;
}

function rewrite(record: JsonRecord, kind: HostileRecordKind, dataset: HostileRecordDataset) {
  const pollen = dataset === 'pollen';
  switch (kind) {
    case 'nul':
      if (pollen) renameTreeSpecies(record, (name) => `${name}\u0000`);
      else record.summary = `${String(record.summary ?? '')}\u0000`;
      return record;
    case 'nulvalue':
      if (pollen) objectAt(record, 'Risk').tree_pollen = 'Lo\u0000w';
      else record.temperature = '2\u00001';
      return record;
    case 'long':
      if (pollen) renameTreeSpecies(record, (name) => name.padEnd(LONG_STRING_LENGTH, 'x'));
      else record.summary = String(record.summary ?? '').padEnd(LONG_STRING_LENGTH, '.');
      return record;
    case 'wrongtype':
      if (pollen) objectAt(record, 'Count').tree_pollen = [8];
      else record.temperature = true;
      return record;
    case 'badrisk':
      objectAt(record, 'Risk').tree_pollen = 'Extreme';
      return record;
    case 'millis':
      return inMilliseconds(record);
    case 'blank':
      return {};
  }
}

/** The object at `key`, created when absent. */
function objectAt(record: JsonRecord, key: string): JsonRecord {
  const value = record[key];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as JsonRecord;
  }
  const created: JsonRecord = {};
  record[key] = created;
  return created;
}

/** Renames the first tree species (adds `Oak` with a count of 1 to a record without one). */
function renameTreeSpecies(record: JsonRecord, rename: (name: string) => string): void {
  const tree = objectAt(objectAt(record, 'Species'), 'Tree');
  const [name = 'Oak', count = 1] = Object.entries(tree)[0] ?? [];
  delete tree[name];
  tree[rename(name)] = count;
}

/** The record stamped with `time` in epoch milliseconds, whatever its stamp was. */
function inMilliseconds(record: JsonRecord): JsonRecord {
  const { time, timestamp, ...rest } = record;
  const ms =
    typeof time === 'number' ? time * 1000 : Date.parse(String(timestamp ?? rest.updatedAt));
  return { time: ms, ...rest };
}
