import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { parseRateLimits } from '../../src/config/rate-limit.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (isEnvdataError(error) && error.code === 'CONFIG_INVALID') return error.message;
    throw error;
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('loadConfig', () => {
  it('defaults point at the local services', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/envdata');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.queuePrefix).toBe('envdata');
    expect(config.service.baseUrl).toBe('http://127.0.0.1:8787');
    expect(config.service.apiKey).toBeUndefined();
    expect(config.rateLimits).toEqual([{ max: 10, durationMs: 1000, label: '10/s' }]);
    expect(config.ingest.historyWindowHours).toBe(48);
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.service)).toBe(true);
    expect(Object.isFrozen(config.rateLimits)).toBe(true);
  });

  it('reads every knob', () => {
    const config = loadConfig({
      ENVDATA_API_KEY: 'k-123456',
      ENVDATA_RATE_LIMIT: '20/s, 50000/day',
      ENVDATA_WORKER_CONCURRENCY: '32',
      ENVDATA_HISTORY_WINDOW: '7d',
      ENVDATA_BASE_URL: 'https://api.example.test/',
      LOG_FORMAT: 'auto',
    });
    expect(config.service.apiKey).toBe('k-123456');
    expect(config.service.baseUrl).toBe('https://api.example.test');
    expect(config.rateLimits.map((r) => [r.max, r.durationMs])).toEqual([
      [20, 1000],
      [50000, 86_400_000],
    ]);
    expect(config.worker.concurrency).toBe(32);
    expect(config.ingest.historyWindowHours).toBe(168);
    expect(config.log.format).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'auto' }, { isTty: true }).log.format).toBe('pretty');
  });

  it('lists every problem in one message', () => {
    const message = configError({
      DATABASE_URL: 'mysql://x',
      REDIS_URL: 'nope',
      ENVDATA_WORKER_CONCURRENCY: '0',
      ENVDATA_HISTORY_WINDOW: '30m',
      ENVDATA_QUEUE_PREFIX: 'has space',
    });
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'ENVDATA_WORKER_CONCURRENCY',
      'ENVDATA_HISTORY_WINDOW',
      'ENVDATA_QUEUE_PREFIX',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('never echoes the API key in a config error', () => {
    const message = configError({ ENVDATA_API_KEY: '', REDIS_URL: 'nope' });
    expect(message).toContain('REDIS_URL');
    // An empty key means "unset": only the bad URL is reported.
    expect(message).not.toContain('ENVDATA_API_KEY');
  });
});

describe('parseRateLimits', () => {
  it('parses rates with multipliers and "off"', () => {
    expect(parseRateLimits('1200/min')).toEqual([
      { max: 1200, durationMs: 60_000, label: '1200/min' },
    ]);
    expect(parseRateLimits('5/10s')).toEqual([{ max: 5, durationMs: 10_000, label: '5/10s' }]);
    expect(parseRateLimits('off')).toEqual([]);
  });

  it('explains a rate it cannot read', () => {
    expect(parseRateLimits('20 per second')).toMatch(/not a rate/);
    expect(parseRateLimits('0/s')).toMatch(/at least one call/);
  });
});
