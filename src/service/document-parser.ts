import type { ParsedPayload } from './models.js';
import type { ParseContext } from './parse-envelope.js';

/** Reads a JSON body into a payload (`parsePollenDocument`…); throws `MALFORMED_RESPONSE`. */
export type DocumentParser<TPayload extends ParsedPayload<unknown>> = (
  json: unknown,
  context: ParseContext,
) => TPayload;
