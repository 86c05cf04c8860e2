/** What every occurrence of the API key is replaced with in text envdata keeps. */
export const SECRET_MARKER = '[redacted]';

/**
 * `text` with every occurrence of `secret` replaced by `[redacted]`: as written, as it reads
 * inside a JSON string (escaped quotes, backslashes, `\/`) and percent-encoded (echoed in a URL).
 * The client runs every response body through this before parsing it, so a service that echoes
 * the API key (in a message, a field, a species name) cannot carry it into the raw archive, the
 * quarantine, the facts, the ledger, Redis or the logs. Returns `text` itself when there is
 * nothing to replace.
 *
 * @example scrubSecret('{"echo":"k-123"}', 'k-123') // '{"echo":"[redacted]"}'
 */
export function scrubSecret(text: string, secret: string): string {
  if (secret === '') return text;
  let out = text;
  for (const form of secretForms(secret)) {
    if (out.includes(form)) out = out.split(form).join(SECRET_MARKER);
  }
  return out;
}

/** Whether `text` holds `secret` in any of the forms `scrubSecret` replaces. */
export function containsSecret(text: string, secret: string): boolean {
  return secret !== '' && secretForms(secret).some((form) => text.includes(form));
}

function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)])];
}
