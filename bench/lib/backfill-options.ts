import { QUEUE_BACKENDS, type QueueBackend } from '../../src/config/config.js';
import { readBenchFlags, wholeNumberFlag } from './bench-flags.js';

/** What `npm run bench:backfill` measures, from its flags. */
export interface BackfillOptions {
  /** Queue backends to measure, in `QUEUE_BACKENDS` order whatever order they were given in. */
  readonly backends: readonly QueueBackend[];
  readonly locations: number;
  /** Days of pollen and weather the end-to-end backfill covers. */
  readonly days: number;
  /** R: the simulator's and envdata's limit, calls per second. */
  readonly rate: number;
  /** How long the rate-limited backfill lasts at R: R × this many calls. */
  readonly rateSeconds: number;
  readonly concurrency: number;
  /** Parts to measure (1 to 5), ascending; default all. */
  readonly parts: readonly BenchPart[];
  /** Part 5: days of each traced backfill, and rounds of the three modes. */
  readonly traceDays: number;
  readonly traceRounds: number;
}

export const BENCH_PARTS = [1, 2, 3, 4, 5] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

const USAGE = `usage: npm run bench:backfill -- [options]
  --backends LIST      queue backends to measure, comma-separated: ${QUEUE_BACKENDS.join(', ')} (default all)
  --locations N        locations of the end-to-end and rate-limited backfills (default 8)
  --days N             days of pollen and weather of the end-to-end backfill (default 240)
  --rate R             calls/s the simulator allows and ENVDATA_RATE_LIMIT is set to (default 20)
  --rate-seconds S     length of the rate-limited backfill: R × S calls (default 20)
  --concurrency N      ingest worker concurrency (default 32)
  --parts LIST         parts to measure, comma-separated: ${BENCH_PARTS.join(', ')} (default all; 2 alone: the rate limit; 5 alone: tracing)
  --trace-days N       part 5: days of each backfill, tracing off, at 100 % and at 10 % (default 90)
  --trace-rounds N     part 5: rounds of the three, alternating (default 4)
Servers: BENCH_DATABASE_URL (a superuser URL), BENCH_REDIS_URL (redis backend only).`;

function backendsOf(raw: string): QueueBackend[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(QUEUE_BACKENDS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--backends ${unknown.length > 0 ? `has no backend ${unknown.map((n) => `"${n}"`).join(', ')}` : 'is empty'}: allowed are ${QUEUE_BACKENDS.join(', ')}`,
    );
  }
  return QUEUE_BACKENDS.filter((backend) => names.includes(backend));
}

function partsOf(raw: string): BenchPart[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !BENCH_PARTS.some((part) => String(part) === name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--parts ${unknown.length > 0 ? `has no part ${unknown.map((n) => `"${n}"`).join(', ')}` : 'is empty'}: allowed are ${BENCH_PARTS.join(', ')}`,
    );
  }
  return BENCH_PARTS.filter((part) => names.includes(String(part)));
}

/** Reads the flags of `argv` (without node and the script); `--help` prints the usage. */
export function readBackfillOptions(argv: readonly string[]): BackfillOptions {
  return readBenchFlags(
    'bench:backfill',
    USAGE,
    argv,
    {
      backends: { type: 'string', default: QUEUE_BACKENDS.join(',') },
      locations: { type: 'string', default: '8' },
      days: { type: 'string', default: '240' },
      rate: { type: 'string', default: '20' },
      'rate-seconds': { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '32' },
      parts: { type: 'string', default: BENCH_PARTS.join(',') },
      'trace-days': { type: 'string', default: '90' },
      'trace-rounds': { type: 'string', default: '4' },
    },
    (values) => ({
      backends: backendsOf(values.backends),
      locations: wholeNumberFlag('locations', values.locations, 1_000),
      days: wholeNumberFlag('days', values.days, 3_660),
      rate: wholeNumberFlag('rate', values.rate, 1_000),
      rateSeconds: wholeNumberFlag('rate-seconds', values['rate-seconds'], 600),
      concurrency: wholeNumberFlag('concurrency', values.concurrency, 1_000),
      parts: partsOf(values.parts),
      traceDays: wholeNumberFlag('trace-days', values['trace-days'], 300),
      traceRounds: wholeNumberFlag('trace-rounds', values['trace-rounds'], 20),
    }),
  );
}
