import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../src/logging/create-logger.js';
import { captureLogger } from '../harness/capture-logger.js';

const KEY = 'live-key-0123456789';

describe('createLogger', () => {
  it('writes JSON lines carrying the child context', () => {
    const { logger, lines } = captureLogger();
    logger.child({ component: 'worker', runId: 7 }).info({ chunk: 3 }, 'landed');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ component: 'worker', runId: 7, chunk: 3, msg: 'landed' });
  });

  it('redacts the x-api-key header and apiKey fields', () => {
    const { logger, lines } = captureLogger();
    logger.info({ headers: { 'x-api-key': KEY }, options: { apiKey: KEY } }, 'request');
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).toContain('[redacted]');
  });

  it('scrubs the key from messages, errors and stacks wherever it appears', () => {
    const { logger, lines } = captureLogger([KEY]);
    logger.error({ err: new Error(`upstream echoed ${KEY}`) }, `failed with ${KEY}`);
    logger.warn({ url: `http://x/?k=${KEY}`, nested: { deeper: [KEY] } }, 'odd');
    const text = lines.join('\n');
    expect(lines).toHaveLength(2);
    expect(text).not.toContain(KEY);
  });

  it('scrubs JSON-escaped forms of a secret', () => {
    expect(scrubSecrets('{"a":"x\\"y"}', ['x"y'])).toBe('{"a":"[redacted]"}');
  });
});
