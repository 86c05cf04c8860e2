import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../../src/logging/create-logger.js';
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

describe('createLogger in pretty format', () => {
  const collect = () => {
    const writes: string[] = [];
    return { writes, destination: { write: (text: string) => void writes.push(text) } };
  };

  it('writes each readable line to the destination as it is logged, one write per line', () => {
    const { writes, destination } = collect();
    const logger = createLogger({ level: 'info', format: 'pretty', color: false, destination });
    logger.warn({ chunkId: 3 }, 'will retry');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(\d+\): will retry\n {4}chunkId: 3\n$/,
    );
  });

  it('colours the level unless colour is off (NO_COLOR)', () => {
    const coloured = collect();
    createLogger({ level: 'info', format: 'pretty', destination: coloured.destination }).info('hi');
    expect(coloured.writes[0]).toContain('\x1b[');
    const plain = collect();
    createLogger({
      level: 'info',
      format: 'pretty',
      color: false,
      destination: plain.destination,
    }).info('hi');
    expect(plain.writes[0]).not.toContain('\x1b[');
  });

  it('scrubs secrets before the line is made readable', () => {
    const { writes, destination } = collect();
    createLogger({
      level: 'info',
      format: 'pretty',
      color: false,
      secrets: [KEY],
      destination,
    }).info(`echoed ${KEY}`);
    expect(writes.join('')).not.toContain(KEY);
    expect(writes.join('')).toContain('[redacted]');
  });
});
