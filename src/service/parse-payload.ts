import { collectRecords } from './collect-records.js';
import type { ParsedPayload } from './models.js';
import { parseEnvelope, type ParseContext } from './parse-envelope.js';

/**
 * A parsed body as a payload: its envelope read (or `MALFORMED_RESPONSE`), each record parsed
 * with `parseRecord` (unfit ones to `rejected`), the raw body kept. The body parsers of the three
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
  const { records, rejected } = collectRecords(envelope.records, parseRecord);
  return { lat: envelope.lat, lng: envelope.lng, records, rejected, rawBody: context.rawBody };
}
