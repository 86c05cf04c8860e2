import { collectRecords } from './collect-records.js';
import type { ParsedPayload } from './models.js';
import { parseEnvelope, type ParseContext } from './parse-envelope.js';
import { rejectedRecordInstant } from './parse-record-instant.js';

/**
 * A parsed body as a payload: its envelope read (or `MALFORMED_RESPONSE`), each record parsed
 * with `parseRecord` (unfit ones to `rejected`, with their instant when their stamp is readable),
 * the raw body kept. The body parsers of the three
 * kinds are this with their record parser.
 *
 * @param singleObject whether `data` may be one record object (weather latest).
 */
export function parsePayload<TRecord>(
  json: unknown,
  context: ParseContext,
  singleObject: boolean,
  parseRecord: (raw: unknown) => TRecord,
): ParsedPayload<TRecord> {
  const envelope = parseEnvelope(json, context, singleObject);
  const collected = collectRecords(envelope.records, parseRecord);
  const { records } = collected;
  const rejected = collected.rejected.map((r) => ({ ...r, at: rejectedRecordInstant(r.raw) }));
  return {
    lat: envelope.lat,
    lng: envelope.lng,
    records,
    rejected,
    rawBody: context.rawBody,
    endpoint: context.endpoint,
    document: json,
  };
}
