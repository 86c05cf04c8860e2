import { z } from 'zod';
import { toFiniteNumber, type JsonObject } from './record-fields.js';
import { ServiceError } from './service-error.js';

/** Where a body came from; both optional, since archived payloads are parsed without a request. */
export interface PayloadSource {
  /** The endpoint path; `undefined` when parsing an archived payload. */
  readonly endpoint?: string | undefined;
  readonly httpStatus?: number | undefined;
}

/** A body and where it came from, for the payload and the errors raised while parsing it. */
export interface ParseContext extends PayloadSource {
  /** The exact body, kept on the payload and (truncated) on `MALFORMED_RESPONSE`. */
  readonly rawBody: string;
}

/** The service's envelope, every recorded variant folded together. */
export interface Envelope {
  /** `message` (most endpoints) or `status` (weather history), as sent. */
  readonly statusText: string;
  /**
   * The record array: `data`, `data.history` or `data.forecast`; `[data]` for a single-object
   * `data` where allowed; none for `data: {}`.
   */
  readonly records: readonly unknown[];
  /** Payload coordinates: top-level `lat`/`lng`, else `data.lat`/`data.lng`; strings accepted. */
  readonly lat: number | undefined;
  readonly lng: number | undefined;
}

/** How many characters of a body an error keeps in `details.body`. */
export const BODY_EXCERPT_CHARS = 2_000;

const coordinate = z.union([z.number(), z.string()]).nullish();

// Envelope-level shape only: records are checked one by one by hand (faster, and a bad record is
// rejected on its own instead of failing the payload).
const envelopeSchema = z.object({
  message: z.string().optional(),
  status: z.string().optional(),
  lat: coordinate,
  lng: coordinate,
  data: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]),
});

/** `JSON.parse`, with a non-JSON body raised as `MALFORMED_RESPONSE`. */
export function parseJsonBody(context: ParseContext): unknown {
  try {
    return JSON.parse(context.rawBody);
  } catch {
    throw malformedResponse(context, 'the body is not JSON');
  }
}

/**
 * Reads the envelope of a parsed body. Throws `MALFORMED_RESPONSE` when it does not fit: not an
 * object, no `message`/`status` string, no `data` array or object, unreadable coordinates.
 *
 * @param singleObject whether `data` may be one record object (weather latest).
 */
export function parseEnvelope(
  json: unknown,
  context: ParseContext,
  singleObject: boolean,
): Envelope {
  const result = envelopeSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.');
    throw malformedResponse(context, `${where}: ${issue?.message ?? 'unexpected shape'}`);
  }
  const envelope = result.data;
  const statusText = envelope.message ?? envelope.status;
  if (statusText === undefined) {
    throw malformedResponse(context, 'the envelope has neither a message nor a status string');
  }

  let records: readonly unknown[];
  let inner: JsonObject | undefined;
  if (Array.isArray(envelope.data)) {
    records = envelope.data;
  } else {
    inner = envelope.data;
    const list = inner.history ?? inner.forecast;
    if (Array.isArray(list)) records = list;
    else if (Object.keys(inner).length === 0) records = [];
    else if (list !== undefined)
      throw malformedResponse(context, 'data.history/data.forecast is not an array');
    else if (singleObject) records = [inner];
    else throw malformedResponse(context, 'data is an object without a history or forecast array');
  }

  return {
    statusText,
    records,
    lat: coordinateOf(envelope.lat ?? inner?.lat, 'lat', 90, context),
    lng: coordinateOf(envelope.lng ?? inner?.lng, 'lng', 180, context),
  };
}

function coordinateOf(
  value: unknown,
  name: string,
  limit: number,
  context: ParseContext,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = toFiniteNumber(value);
  if (number === undefined || Math.abs(number) > limit) {
    throw malformedResponse(context, `${name} is not a coordinate in [-${limit}, ${limit}]`);
  }
  return number;
}

/** The `MALFORMED_RESPONSE` error for a body, with an excerpt of it in `details`. */
export function malformedResponse(context: ParseContext, reason: string): ServiceError {
  const where = context.endpoint ?? 'an archived payload';
  return new ServiceError(
    'MALFORMED_RESPONSE',
    `the service's answer to ${where} does not fit the expected shape (${reason}). ` +
      'The body is in details.body; if this repeats, the service changed its format: compare it ' +
      'with the upstream spec and update the parsers in src/service.',
    {
      endpoint: context.endpoint,
      httpStatus: context.httpStatus,
      retryable: true,
      details: {
        reason,
        body: excerpt(context.rawBody),
        bodyLength: context.rawBody.length,
      },
    },
  );
}

/** The first `BODY_EXCERPT_CHARS` characters of a body, marked when cut. */
export function excerpt(body: string): string {
  return body.length > BODY_EXCERPT_CHARS
    ? `${body.slice(0, BODY_EXCERPT_CHARS)}…[truncated]`
    : body;
}
