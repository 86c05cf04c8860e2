import type { Logger } from '../logging/create-logger.js';
import { classifyResponse } from './classify-response.js';
import type { DocumentParser } from './document-parser.js';
import { elapsedMs } from './elapsed-ms.js';
import type { Endpoint } from './endpoints.js';
import type { ParsedPayload } from './models.js';
import { parseJsonBody, type ParseContext } from './parse-envelope.js';
import { parsePartialBody } from './parse-partial-body.js';
import { ServiceError } from './service-error.js';
import type { ServiceAnswer } from './service-transport.js';

/** What `readServiceResponse` needs to know of the call an answer belongs to. */
export interface ServiceCall<TPayload extends ParsedPayload<unknown>> {
  readonly endpoint: Endpoint;
  /** The query as sent, for the log lines. */
  readonly queryString: string;
  readonly parseDocument: DocumentParser<TPayload>;
  /** History: a `206` is returned with `complete: false` (its records are worth landing). */
  readonly keepPartial: boolean;
  readonly log: Logger | undefined;
  /** Told of a `Retry-After` too far off to believe (the client warns once per value). */
  readonly onImplausibleRetryAfter: (value: string, endpointPath: string, status: number) => void;
}

/**
 * What an answer of the service means: its payload (`complete: false` for a `206` kept by a
 * history call), or the `ServiceError` its status and body say (`classifyResponse`), a `206`
 * elsewhere being `PARTIAL`. Logs a `debug` line per call and a `warn` line for a payload with
 * rejected records.
 */
export function readServiceResponse<TPayload extends ParsedPayload<unknown>>(
  answer: ServiceAnswer,
  call: ServiceCall<TPayload>,
): { payload: TPayload; complete: boolean } {
  const { status, body, started } = answer;
  const { endpoint, queryString, parseDocument, log } = call;
  const context: ParseContext = { rawBody: body, endpoint: endpoint.path, httpStatus: status };
  let json: unknown;
  if (status >= 200 && status < 300) {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined; // a truncated 206 is salvaged below; any other 2xx is malformed
    }
  }
  const failure = classifyResponse({
    endpoint: endpoint.path,
    status,
    headers: answer.headers,
    body,
    json,
  });
  if (failure?.code === 'PARTIAL' && call.keepPartial) {
    // parsePartialBody's empty payload has `never` records: assignable to any payload.
    const payload = parsePartialBody(json, context, parseDocument) as TPayload;
    log?.debug(
      {
        endpoint: endpoint.path,
        query: queryString,
        status,
        partialRecords: payload.records.length,
        ms: elapsedMs(started),
      },
      'service call answered in part',
    );
    return { payload, complete: false };
  }
  if (failure !== undefined) {
    if (failure.retryAfterImplausible !== undefined) {
      call.onImplausibleRetryAfter(failure.retryAfterImplausible, endpoint.path, status);
    }
    log?.debug(
      {
        endpoint: endpoint.path,
        query: queryString,
        status,
        code: failure.code,
        ms: elapsedMs(started),
      },
      'service call failed',
    );
    throw new ServiceError(failure.code, failure.message, {
      endpoint: failure.endpoint,
      httpStatus: failure.httpStatus,
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
      details: failure.details,
    });
  }

  const payload = parseDocument(json !== undefined ? json : parseJsonBody(context), context);
  if (payload.rejected.length > 0) {
    log?.warn(
      {
        endpoint: endpoint.path,
        query: queryString,
        rejected: payload.rejected.length,
        records: payload.records.length,
        firstReason: payload.rejected[0]?.reason,
      },
      'service payload has records that do not fit; they go to quarantine',
    );
  }
  log?.debug(
    {
      endpoint: endpoint.path,
      query: queryString,
      status,
      records: payload.records.length,
      bytes: body.length,
      ms: elapsedMs(started),
    },
    'service call',
  );
  return { payload, complete: true };
}
