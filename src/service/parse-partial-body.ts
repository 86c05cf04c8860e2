import type { ParsedPayload } from './models.js';
import type { ParseContext } from './parse-envelope.js';
import { salvageTruncatedJson } from './salvage-truncated-json.js';
import { ServiceError } from './service-error.js';

/**
 * The payload of a `206` answer, parsed as far as it goes: never throws for the body's sake. A
 * truncated body is salvaged up to its last complete record; a body with no readable envelope
 * gives zero records. The result is always incomplete: callers keep the rows and retry.
 *
 * @param json the body already parsed, or `undefined` when `JSON.parse` failed (truncated body)
 */
export function parsePartialBody<TPayload extends ParsedPayload<unknown>>(
  json: unknown,
  context: ParseContext,
  parseDocument: (json: unknown, context: ParseContext) => TPayload,
): TPayload | ParsedPayload<never> {
  const document = json !== undefined ? json : salvageTruncatedJson(context.rawBody);
  if (document !== undefined) {
    try {
      return parseDocument(document, context);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
    }
  }
  const { rawBody, endpoint } = context;
  return { lat: undefined, lng: undefined, records: [], rejected: [], rawBody, endpoint };
}
