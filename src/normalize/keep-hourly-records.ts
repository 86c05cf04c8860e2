import type { ParsedPayload } from '../service/models.js';
import type { Window } from '../types.js';
import type { NormalizeStats, QuarantinedRecord } from '../warehouse/fact-rows.js';
import { hourOf } from './hour-of.js';

/** The values of a record that become fact columns, by name: what two copies must agree on. */
export type RecordValues = Readonly<Record<string, string | number | null | undefined>>;

export interface HourlyRecords<TRecord> extends NormalizeStats {
  /** One record per UTC hour (epoch ms of the hour → record), in payload order. */
  readonly byHour: ReadonlyMap<number, TRecord>;
  /** The parser's rejects, the records `validate` refused and conflicting copies, with reasons. */
  readonly quarantined: readonly QuarantinedRecord[];
  /** Hours (epoch ms) that have quarantined records and no record kept. */
  readonly quarantinedHours: ReadonlySet<number>;
}

/**
 * The shared first step of every normalization: quarantine what the parser rejected (with its
 * hour when its stamp is readable, so the hour counts as quarantined) and what `validate` refuses, drop records whose hour falls outside `window`, and keep one record per
 * hour. Copies of an hour that agree on every value (`valuesOf`) collapse quietly; copies that
 * disagree are all quarantined with a reason naming both values, and no record is kept for that
 * hour: a silently chosen copy would be a silently wrong value.
 */
export function keepHourlyRecords<TRecord extends { readonly at: Date }>(
  payload: ParsedPayload<TRecord>,
  window: Window | undefined,
  validate: (record: TRecord) => string | undefined,
  valuesOf: (record: TRecord) => RecordValues,
): HourlyRecords<TRecord> {
  const quarantined: QuarantinedRecord[] = [];
  const copies = new Map<number, { record: TRecord; index: number }[]>();
  const quarantinedHours = new Set<number>();
  let outsideWindow = 0;
  let duplicateHours = 0;
  // A rejected record with a readable stamp is placed like any record: its hour is quarantined
  // (not missing upstream), or it is outside the window; without one it is unplaceable.
  for (const r of payload.rejected) {
    const hour = r.at === undefined ? undefined : hourOf(r.at).getTime();
    if (
      window &&
      hour !== undefined &&
      (hour < window.from.getTime() || hour >= window.to.getTime())
    ) {
      outsideWindow++;
      continue;
    }
    quarantined.push({
      recordIndex: r.index,
      raw: r.raw,
      reason: r.reason,
      ...(hour !== undefined && { hour: new Date(hour) }),
    });
    if (hour !== undefined) quarantinedHours.add(hour);
  }
  payload.records.forEach((record, index) => {
    const valid = !Number.isNaN(record.at.getTime());
    const problem = valid ? validate(record) : 'record has no valid timestamp';
    const hour = valid ? hourOf(record.at).getTime() : Number.NaN;
    if (window && valid && (hour < window.from.getTime() || hour >= window.to.getTime())) {
      outsideWindow++;
      return;
    }
    if (problem !== undefined) {
      quarantined.push({
        recordIndex: index,
        raw: record,
        reason: problem,
        ...(valid && { hour: new Date(hour) }),
      });
      if (valid) quarantinedHours.add(hour);
      return;
    }
    const list = copies.get(hour);
    if (list) list.push({ record, index });
    else copies.set(hour, [{ record, index }]);
  });

  const byHour = new Map<number, TRecord>();
  let conflictHours = 0;
  for (const [hour, list] of copies) {
    const first = list[0]!;
    if (list.length === 1) {
      byHour.set(hour, first.record);
      continue;
    }
    const firstValues = valuesOf(first.record);
    const differing = list
      .slice(1)
      .map((c) => ({ copy: c, diff: differences(firstValues, valuesOf(c.record)) }))
      .find((d) => d.diff.length > 0);
    if (!differing) {
      duplicateHours += list.length - 1;
      byHour.set(hour, list.at(-1)!.record);
      continue;
    }
    conflictHours++;
    quarantinedHours.add(hour);
    const at = new Date(hour).toISOString().slice(0, 13).replace('T', ' ') + ':00 UTC';
    const reason =
      `conflicting duplicates: ${list.length} records for ${at} disagree ` +
      `(${differing.diff.slice(0, 4).join('; ')}${differing.diff.length > 4 ? '; …' : ''}); ` +
      'none landed for this hour';
    for (const c of list) {
      quarantined.push({ recordIndex: c.index, raw: c.record, reason, hour: new Date(hour) });
    }
  }
  for (const hour of byHour.keys()) quarantinedHours.delete(hour);
  return { byHour, quarantined, quarantinedHours, outsideWindow, duplicateHours, conflictHours };
}

function differences(a: RecordValues, b: RecordValues): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key] ?? null;
    const y = b[key] ?? null;
    if (x !== y) out.push(`${key} ${show(x)} vs ${show(y)}`);
  }
  return out;
}

function show(value: string | number | null): string {
  return value === null ? 'absent' : typeof value === 'string' ? JSON.stringify(value) : `${value}`;
}
