import { request } from 'undici';
import type { NotifyTarget } from '../config/config.js';

/** What a target answered: an HTTP status, or why there was no answer (never the URL). */
export type PostAnswer =
  | { readonly ok: boolean; readonly status: number }
  | { readonly ok: false; readonly error: string };

/**
 * POSTs `body` (JSON) to `target`, giving up after `timeoutMs`, with `headers` besides the
 * content type (a lineage receiver's `authorization`). A 2xx answer acknowledges it; anything
 * else, or no answer in time, does not. Errors name the failure by its code (`ECONNREFUSED`,
 * `timeout`), never the URL, whose path may be a secret, nor a header.
 */
export async function postNotification(
  target: Pick<NotifyTarget, 'url'>,
  body: string,
  timeoutMs: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<PostAnswer> {
  try {
    const answer = await request(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'envdata', ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // Read and dropped: the connection goes back to the pool.
    await answer.body.dump();
    return { ok: answer.statusCode >= 200 && answer.statusCode < 300, status: answer.statusCode };
  } catch (error) {
    return { ok: false, error: describePostError(error) };
  }
}

function describePostError(error: unknown): string {
  const e = error as { name?: unknown; code?: unknown; cause?: { code?: unknown } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const code = e?.code ?? e?.cause?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  return typeof code === 'string' ? code : 'no answer';
}
