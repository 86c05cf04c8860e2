/**
 * `npm run bench:quota`: what counting a call in the quota and the budget costs beside the call
 * itself (issue 37). The counters are rows of `envdata.quota_usage` on both queue backends, so
 * that losing Redis loses no count of money; this measures what that costs against Redis.
 *
 * In a throwaway database on BENCH_DATABASE_URL, with a simulator in a process of its own, one
 * after the other (a round trip each, as one worker's call sees it):
 *
 * 1. `QuotaGate.take` on `envdata.quota_usage` (what every call now does when a quota or budget
 *    is configured): a day's and a month's row locked, checked and counted;
 * 2. the same check and count as one Lua script over two Redis keys (what the Redis backend did
 *    before: kept here only as the baseline) on REDIS_URL, under a prefix of its own, removed;
 * 3. a call: a 48-hour weather history of one location from the simulator, through envdata's
 *    service client (a real service answers slower: this is the least a call takes).
 *
 * Then `--concurrency` takers at once on the Postgres rows (every worker's calls queue on the
 * same two row locks): takes per second, against the rate a plan allows.
 *
 * Target: a take under 2 % of a call. A measurement, not a test: it exits 0 either way.
 *
 * @example npm run bench:quota
 * @example npm run bench:quota -- --takes 5000 --calls 500 --concurrency 32
 */
import { admissionStores } from '../src/admission/admission-stores.js';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { QuotaGate } from '../src/admission/quota-gate.js';
import { createRedis } from '../src/queue/create-redis.js';
import { createServiceClient } from '../src/service/service-client.js';
import { DEMO_API_KEY } from '../src/simulator/simulator-options.js';
import { benchOptions, DEFAULT_SERVER_URL, runInBenchDatabase } from './lib/bench-database.js';
import { fmtInt, printMisses, table, verdict } from './lib/report.js';
import { startSimulatorProcess } from './lib/simulator-process.js';

/** A take's share of a call at most. */
const TARGET_SHARE = 0.02;

/** The check and count the Redis backend's quota counter made, as the baseline. */
const REDIS_TAKE = `
local d = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
if d >= tonumber(ARGV[1]) then return {0, 1, d, m} end
if m >= tonumber(ARGV[2]) then return {0, 2, d, m} end
d = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
m = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1, 0, d, m}
`;

function readOptions(): { takes: number; calls: number; concurrency: number; keep: boolean } {
  const { values } = parseArgs({
    options: {
      takes: { type: 'string', default: '3000' },
      calls: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '32' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const whole = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number ≥ 1`);
    return n;
  };
  return {
    takes: whole('takes', values.takes),
    calls: whole('calls', values.calls),
    concurrency: whole('concurrency', values.concurrency),
    keep: values.keep,
  };
}

/** Median and mean of `n` runs of `once`, one after the other, in µs (after 50 to warm up). */
async function timeEach(
  n: number,
  once: () => Promise<unknown>,
): Promise<{ median: number; mean: number }> {
  for (let i = 0; i < Math.min(50, n); i += 1) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    await once();
    times.push((performance.now() - t0) * 1_000);
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)]!,
    mean: times.reduce((s, t) => s + t, 0) / times.length,
  };
}

const options = benchOptions('bench:quota', readOptions);
if (options !== undefined) {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await runInBenchDatabase(serverUrl, options.keep, async ({ app, stopIfInterrupted }) => {
    const simulator = await startSimulatorProcess();
    const redis = createRedis({ url: redisUrl, clusterNodes: [] }, 'client', 'bench-quota');
    const prefix = `envdata-bench-quota-${process.pid}`;
    try {
      // No cap binds: every take counts.
      const quota = { ...app.config.quota, perDay: 2_000_000_000, syncReserve: 0 };
      const gate = new QuotaGate(admissionStores(app.queues).quota, quota);
      console.log(`quota take on envdata.quota_usage: ${options.takes} takes`);
      const postgres = await timeEach(options.takes, () => gate.take('other'));
      stopIfInterrupted();

      console.log(`the same on Redis (${redisUrl}): ${options.takes} takes`);
      const keys = [`${prefix}:day`, `${prefix}:month`];
      const onRedis = await timeEach(options.takes, () =>
        redis.eval(REDIS_TAKE, 2, ...keys, 2_000_000_000, 2_000_000_000, 3_600_000),
      );
      await redis.del(...keys);
      stopIfInterrupted();

      console.log(`a call: ${options.calls} 48-hour weather histories from the simulator`);
      const client = createServiceClient({
        ...app.config.service,
        baseUrl: simulator.url,
        apiKey: DEMO_API_KEY,
      });
      const to = new Date(Math.floor(Date.now() / 3_600_000 - 48) * 3_600_000);
      const from = new Date(to.getTime() - 48 * 3_600_000);
      let call: { median: number; mean: number };
      try {
        call = await timeEach(options.calls, () =>
          client.weatherHistory({ lat: 52.52, lng: 13.405, from, to }),
        );
      } finally {
        await client.close();
      }
      stopIfInterrupted();

      console.log(`${options.concurrency} takers at once on envdata.quota_usage`);
      const each = Math.ceil(options.takes / options.concurrency);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          for (let i = 0; i < each; i += 1) await gate.take('other');
        }),
      );
      const perSecond = (each * options.concurrency) / ((performance.now() - t0) / 1_000);

      const share = (us: number) => `${((us / call.median) * 100).toFixed(2)} %`;
      console.log(
        `\n${table(
          ['', 'median µs', 'mean µs', 'of a call (median)'],
          [
            [
              'take, envdata.quota_usage',
              fmtInt(postgres.median),
              fmtInt(postgres.mean),
              share(postgres.median),
            ],
            [
              'take, Redis (before)',
              fmtInt(onRedis.median),
              fmtInt(onRedis.mean),
              share(onRedis.median),
            ],
            ['a call (simulator)', fmtInt(call.median), fmtInt(call.mean), '100 %'],
          ],
        )}`,
      );
      console.log(
        `\n${options.concurrency} takers at once on envdata.quota_usage: ${fmtInt(perSecond)} takes/s`,
      );
      const ok = postgres.median / call.median < TARGET_SHARE;
      console.log(
        `target: a take under ${TARGET_SHARE * 100} % of a call — ${verdict(ok)} (${share(postgres.median)})`,
      );
      printMisses(ok ? [] : [`a take is ${share(postgres.median)} of a call`]);
    } finally {
      redis.disconnect();
      await simulator.stop();
    }
  });
}
