import { createHash } from 'node:crypto';

/**
 * The first 16 hex digits of the SHA-256 of an API key: what the ledger keys the learned history
 * window by (`envdata.history_window`), so two keys learn apart and the key itself is never
 * stored. 64 bits tell keys apart; they do not let anyone recover one.
 */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16);
}
