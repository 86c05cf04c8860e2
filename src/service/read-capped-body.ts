import type { Readable } from 'node:stream';

/**
 * The answer's body is larger than the limit. Raised by `readCappedBody`; the client turns it
 * into a `ServiceError('RESPONSE_TOO_LARGE')`.
 */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';

  constructor(
    /** The limit (ENVDATA_HTTP_MAX_BODY_BYTES). */
    readonly limitBytes: number,
    /** What the answer announced in `Content-Length`, when it did. */
    readonly declaredBytes: number | undefined,
    /** Bytes read before giving up (0 when `Content-Length` alone was enough to refuse). */
    readonly receivedBytes: number,
  ) {
    super(
      declaredBytes !== undefined && declaredBytes > limitBytes
        ? `Content-Length ${declaredBytes} is over the limit of ${limitBytes} bytes`
        : `more than ${limitBytes} bytes received`,
    );
  }
}

/**
 * Reads a response body as UTF-8 text (a leading byte-order mark dropped), never more than
 * `maxBytes`: a `Content-Length` over the limit is refused before a byte is read, and a body is
 * otherwise read as a stream, chunk by chunk, and abandoned as soon as it passes the limit.
 * Abandoning destroys the stream, which aborts the request: the rest is never downloaded. Memory
 * held stays within the limit whatever the server sends.
 *
 * @throws BodyTooLarge
 */
export async function readCappedBody(
  body: Readable,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  maxBytes: number,
): Promise<string> {
  const declared = contentLength(headers['content-length']);
  if (declared !== undefined && declared > maxBytes) {
    abandon(body);
    throw new BodyTooLarge(maxBytes, declared, 0);
  }
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let received = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.byteLength;
      if (received > maxBytes) throw new BodyTooLarge(maxBytes, declared, received);
      parts.push(decoder.decode(chunk, { stream: true }));
    }
  } catch (error) {
    abandon(body);
    throw error;
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** Stops the download. Destroying undici's body aborts the request, reported as an `error` no one awaits. */
function abandon(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function contentLength(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
