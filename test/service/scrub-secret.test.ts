import { describe, expect, it } from 'vitest';
import { containsSecret, scrubSecret } from '../../src/service/scrub-secret.js';

describe('scrubSecret', () => {
  it('replaces every occurrence of the key with [redacted]', () => {
    const key = 'sk-live-0123456789abcdef';
    const body = JSON.stringify({
      message: `key ${key}`,
      data: { [`Birch ${key}`]: 3, echo: key },
    });
    const scrubbed = scrubSecret(body, key);
    expect(scrubbed).not.toContain(key);
    expect(JSON.parse(scrubbed)).toEqual({
      message: 'key [redacted]',
      data: { 'Birch [redacted]': 3, echo: '[redacted]' },
    });
  });

  it('also replaces the key as JSON escapes it and as a URL encodes it', () => {
    const key = 'k"e\\y/+=';
    const body = `{"a":${JSON.stringify(key)},"b":"k\\"e\\\\y\\/+=","c":"?key=${encodeURIComponent(key)}"}`;
    expect(containsSecret(body, key)).toBe(true);
    const scrubbed = scrubSecret(body, key);
    expect(JSON.parse(scrubbed)).toEqual({
      a: '[redacted]',
      b: '[redacted]',
      c: '?key=[redacted]',
    });
    expect(containsSecret(scrubbed, key)).toBe(false);
  });

  it('returns the very same text when the key is absent', () => {
    const body = '{"message":"success"}';
    expect(scrubSecret(body, 'absent-key')).toBe(body);
    expect(scrubSecret(body, '')).toBe(body);
  });
});
