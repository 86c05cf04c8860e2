import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUE_SUITES, REDIS_ONLY_SUITES } from '../harness/queue-suites.js';

describe('the files run on both queue backends (test/harness/queue-suites.ts)', () => {
  it('all exist, each listed once', () => {
    expect(QUEUE_SUITES.filter((file) => !existsSync(file))).toEqual([]);
    expect(new Set(QUEUE_SUITES).size).toBe(QUEUE_SUITES.length);
  });
});

describe('the files run on the redis backend only (REDIS_ONLY_SUITES)', () => {
  it('all exist, each listed once, none also on both backends', () => {
    expect(REDIS_ONLY_SUITES.filter((file) => !existsSync(file))).toEqual([]);
    expect(new Set(REDIS_ONLY_SUITES).size).toBe(REDIS_ONLY_SUITES.length);
    expect(REDIS_ONLY_SUITES.filter((file) => QUEUE_SUITES.includes(file))).toEqual([]);
  });
});
