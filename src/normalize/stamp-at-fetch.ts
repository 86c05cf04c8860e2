import type { LatestRecord, ParsedPayload } from '../service/models.js';
import { hourOf } from './hour-of.js';

/**
 * A latest answer with every reading stamped: one the service sent without any stamp gets the
 * start of the UTC hour of `fetchedAt` (the sync's instant, the snapshot's `fetched_at`) and
 * `stampedAtFetch: true`, which its snapshot rows keep (`stamped_at_fetch`), so a BI user can
 * tell the hour envdata gave from the service's own. Readings the service stamped are kept as
 * they are. Only for latest readings: a latest reading is the one of the hour it was asked in,
 * where the hour of a history or forecast record cannot be guessed (those are refused unstamped).
 */
export function stampAtFetch<TRecord extends { readonly at: Date; readonly stampedAtFetch?: true }>(
  payload: ParsedPayload<LatestRecord<TRecord>>,
  fetchedAt: Date,
): ParsedPayload<TRecord> {
  const hour = hourOf(fetchedAt);
  // `LatestRecord<TRecord>` with a Date `at` is a `TRecord`; the compiler cannot see it through
  // the generic `Omit`.
  const records = payload.records.map((record) =>
    record.at === undefined ? { ...record, at: hour, stampedAtFetch: true } : record,
  ) as unknown as TRecord[];
  return { ...payload, records };
}
