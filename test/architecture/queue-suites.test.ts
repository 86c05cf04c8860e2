import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUE_SUITES } from '../harness/queue-suites.js';

describe('the files run on both queue backends (test/harness/queue-suites.ts)', () => {
  it('all exist, each listed once', () => {
    expect(QUEUE_SUITES.filter((file) => !existsSync(file))).toEqual([]);
    expect(new Set(QUEUE_SUITES).size).toBe(QUEUE_SUITES.length);
  });
});
