import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, type ValueRange } from '../../src/config/environment-variables.js';
import { formatRange } from '../../src/config/format-range.js';
import { loadConfig } from '../../src/config/load-config.js';
import { START_WINDOW_HOURS } from '../../src/windows/learned-window.js';
import { parseRateLimits } from '../../src/config/rate-limit.js';
import { configError } from '../harness/config-error.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

describe('loadConfig', () => {
  it('defaults point at the local services', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/envdata');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.queuePrefix).toBe('envdata');
    expect(config.queueBackend).toBe('redis');
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
    // The `50000/day` rule is the plan's daily quota, counted on calendar days.
    expect(config.rateLimits.map((r) => [r.max, r.durationMs])).toEqual([[20, 1000]]);
    expect(config.quota).toMatchObject({ perDay: 50000, perMonth: undefined, timeZone: 'UTC' });
    expect(config.worker.concurrency).toBe(32);
    expect(config.ingest.historyWindowHours).toBe(168);
    expect(config.log.format).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'auto' }, { isTty: true }).log.format).toBe('pretty');
  });

  it('reads ENVDATA_DRIFT_POLICY for every dataset or per dataset, evolve by default', () => {
    const policyOf = (value?: string) =>
      loadConfig(value === undefined ? {} : { ENVDATA_DRIFT_POLICY: value }).ingest.driftPolicy;
    expect(policyOf()).toEqual({ pollen: 'evolve', weather: 'evolve' });
    expect(policyOf('freeze')).toEqual({ pollen: 'freeze', weather: 'freeze' });
    expect(policyOf('weather=quarantine')).toEqual({ pollen: 'evolve', weather: 'quarantine' });
    const message = configError({ ENVDATA_DRIFT_POLICY: 'weather=ignore,snow=freeze' });
    expect(message).toContain('ENVDATA_DRIFT_POLICY');
    expect(message).toContain('"weather=ignore" must be one of evolve, quarantine, freeze');
    expect(message).toContain('"snow=freeze"');
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

  it('takes ENVDATA_HISTORY_WINDOW=auto: learned per key, starting at 48 h', () => {
    expect(loadConfig({ ENVDATA_HISTORY_WINDOW: 'auto' }).ingest).toMatchObject({
      historyWindowAuto: true,
      historyWindowHours: START_WINDOW_HOURS,
    });
    expect(loadConfig({ ENVDATA_HISTORY_WINDOW: '7d' }).ingest).toMatchObject({
      historyWindowAuto: false,
      historyWindowHours: 168,
    });
    expect(configError({ ENVDATA_HISTORY_WINDOW: 'automatic' })).toMatch(
      /ENVDATA_HISTORY_WINDOW.*must be whole hours such as 48h or 7d.*, or auto/,
    );
  });

  it('takes the queue backend, and names the allowed ones for any other', () => {
    expect(loadConfig({ ENVDATA_QUEUE_BACKEND: 'postgres' }).queueBackend).toBe('postgres');
    expect(configError({ ENVDATA_QUEUE_BACKEND: 'mysql' })).toContain(
      'ENVDATA_QUEUE_BACKEND (got "mysql"): must be one of redis, postgres',
    );
  });

  it('never echoes the API key in a config error', () => {
    const message = configError({ ENVDATA_API_KEY: '', REDIS_URL: 'nope' });
    expect(message).toContain('REDIS_URL');
    // An empty key means "unset": only the bad URL is reported.
    expect(message).not.toContain('ENVDATA_API_KEY');
  });
});

describe('loadConfig ranges', () => {
  it('refuses ENVDATA_JOB_LOCK_MS=10, naming the allowed range', () => {
    expect(configError({ ENVDATA_JOB_LOCK_MS: '10' })).toContain(
      'ENVDATA_JOB_LOCK_MS (got "10"): must be a whole number in 2000–600000 ms (2 s to 10 min)',
    );
  });

  it('asks "no data" hours again after 30 days by default, never with ENVDATA_NO_DATA_RECHECK=0', () => {
    expect(loadConfig({}).ingest.noDataRecheckMs).toBe(30 * 24 * 3_600_000);
    expect(loadConfig({ ENVDATA_NO_DATA_RECHECK: '0' }).ingest.noDataRecheckMs).toBe(0);
    expect(loadConfig({ ENVDATA_NO_DATA_RECHECK: '7d' }).ingest.noDataRecheckMs).toBe(
      7 * 24 * 3_600_000,
    );
    expect(configError({ ENVDATA_NO_DATA_RECHECK: 'monthly' })).toContain(
      'ENVDATA_NO_DATA_RECHECK (got "monthly")',
    );
  });

  it('keeps every snapshot by default, drops them past ENVDATA_SNAPSHOT_RETENTION when set', () => {
    expect(loadConfig({}).sync.snapshotRetentionMs).toBeUndefined();
    expect(loadConfig({ ENVDATA_SNAPSHOT_RETENTION: '400d' }).sync.snapshotRetentionMs).toBe(
      400 * 24 * 3_600_000,
    );
    // Shorter, a month could be settled before the observations of its last forecasts land.
    expect(configError({ ENVDATA_SNAPSHOT_RETENTION: '30d' })).toContain(
      'ENVDATA_SNAPSHOT_RETENTION (got "30d")',
    );
  });

  it('keeps every answer body by default, for ENVDATA_ARCHIVE_RETENTION_DAYS days when set', () => {
    expect(loadConfig({}).ingest.archiveRetentionDays).toBeUndefined();
    expect(loadConfig({ ENVDATA_ARCHIVE_RETENTION_DAYS: '400' }).ingest.archiveRetentionDays).toBe(
      400,
    );
    expect(configError({ ENVDATA_ARCHIVE_RETENTION_DAYS: '0' })).toContain(
      'ENVDATA_ARCHIVE_RETENTION_DAYS (got "0")',
    );
  });

  it('reads ENVDATA_ALERT_REVISED_SHARE as a share, a percentage or off; 5 % by default', () => {
    const share = (value: string) =>
      loadConfig({ ENVDATA_ALERT_REVISED_SHARE: value }).notify.revisedShare;
    expect(loadConfig({}).notify.revisedShare).toBe(0.05);
    expect(share('0.2')).toBe(0.2);
    expect(share('12.5%')).toBe(0.125);
    expect(share('off')).toBeUndefined();
    for (const wrong of ['2', '150%', 'many', '-0.1']) {
      expect(configError({ ENVDATA_ALERT_REVISED_SHARE: wrong })).toContain(
        'must be a share from 0 to 1 (0.05), a percentage (5%) or off',
      );
    }
  });

  it('gives every duration a minimum and a maximum, listed in the message', () => {
    const durations = ENVIRONMENT_VARIABLES.filter(
      (v): v is typeof v & { range: ValueRange } =>
        'range' in v && (v.range.unit === 'ms' || v.range.unit === 'h'),
    );
    expect(durations.map((v) => v.name).sort()).toEqual([
      'ENVDATA_CHUNK_RETENTION',
      'ENVDATA_FRESHNESS_MAX_LAG',
      'ENVDATA_HISTORY_WINDOW',
      'ENVDATA_HTTP_CONNECT_TIMEOUT_MS',
      'ENVDATA_HTTP_TIMEOUT_MS',
      'ENVDATA_JOB_LOCK_MS',
      'ENVDATA_MAX_PAUSE',
      'ENVDATA_MISSING_RECHECK',
      'ENVDATA_NOTIFY_MAX_AGE',
      'ENVDATA_NO_DATA_RECHECK',
      'ENVDATA_NO_WORKER_ALERT',
      'ENVDATA_REFETCH_DELAY_MS',
      'ENVDATA_RETRY_BASE_MS',
      'ENVDATA_SHUTDOWN_TIMEOUT_MS',
      'ENVDATA_SNAPSHOT_RETENTION',
      'ENVDATA_SYNC_HORIZON',
      'ENVDATA_SYNC_LOOKBACK',
      'ENVDATA_WORKER_HEARTBEAT',
    ]);
    for (const v of durations) {
      const { min, max } = v.range;
      const write = (n: number) =>
        v.range.unit === 'h'
          ? `${n}h`
          : [
                'ENVDATA_MAX_PAUSE',
                'ENVDATA_WORKER_HEARTBEAT',
                'ENVDATA_NOTIFY_MAX_AGE',
                'ENVDATA_NO_WORKER_ALERT',
              ].includes(v.name)
            ? `${n}ms`
            : String(n);
      expect(() => loadConfig({ [v.name]: write(min) }), v.name).not.toThrow();
      expect(() => loadConfig({ [v.name]: write(max) }), v.name).not.toThrow();
      for (const bad of [min - 1, max + 1]) {
        const message = configError({ [v.name]: write(bad) });
        expect(message, `${v.name}=${write(bad)}`).toContain(`${v.name} (got "${write(bad)}")`);
        expect(message).toContain(formatRange(v.range));
      }
    }
  });

  it('reads ENVDATA_WORKER_HEARTBEAT as a duration with its unit, 5 s by default', () => {
    expect(loadConfig({}).worker.heartbeatMs).toBe(5_000);
    expect(loadConfig({ ENVDATA_WORKER_HEARTBEAT: '500ms' }).worker.heartbeatMs).toBe(500);
    expect(configError({ ENVDATA_WORKER_HEARTBEAT: '5' })).toContain(
      'ENVDATA_WORKER_HEARTBEAT (got "5"): must be a duration such as 30s, 15m or 2h, in 100–60000 ms (100 ms to 1 min)',
    );
  });

  it('reads ENVDATA_MAX_PAUSE as a duration with its unit, 15 min by default', () => {
    expect(loadConfig({}).worker.maxPauseMs).toBe(900_000);
    expect(loadConfig({ ENVDATA_MAX_PAUSE: '30s' }).worker.maxPauseMs).toBe(30_000);
    expect(loadConfig({ ENVDATA_MAX_PAUSE: '2h' }).worker.maxPauseMs).toBe(7_200_000);
    expect(loadConfig({ ENVDATA_MAX_PAUSE: '1d' }).worker.maxPauseMs).toBe(86_400_000);
    // A bare number could be seconds or milliseconds: refused, with what is allowed.
    expect(configError({ ENVDATA_MAX_PAUSE: '900' })).toContain(
      'ENVDATA_MAX_PAUSE (got "900"): must be a duration such as 30s, 15m or 2h, in 1000–86400000 ms (1 s to 24 h)',
    );
    expect(configError({ ENVDATA_MAX_PAUSE: '2d' })).toContain('ENVDATA_MAX_PAUSE (got "2d")');
  });

  it('refuses a rate counted over less than 100 ms', () => {
    expect(configError({ ENVDATA_RATE_LIMIT: '10/50ms' })).toMatch(
      /ENVDATA_RATE_LIMIT .*"10\/50ms" must count calls over a window from 100 ms to 31 days/,
    );
  });
});

describe('ENVDATA_SYNC_CRON', () => {
  it.each([
    [
      '61 2 * * *',
      /must be a cron pattern .*\(Constraint error, got value 61 expected range 0-59\)/,
    ],
    ['0 0 30 2 *', /must be a cron pattern .*\(Invalid explicit day of month definition\)/],
    ['0 2 * * 8', /got value 8 expected range 0-7/],
    ['0 2 * *', /must be a cron pattern such as "0 2 \* \* \*"/],
    ['* * * * *', /fires every 60 s at times; .* at most once an hour/],
    ['*/10 * * * * *', /fires every 10 s at times/],
  ])("refuses %j with BullMQ's parser, at start", (pattern, message) => {
    expect(configError({ ENVDATA_SYNC_CRON: pattern })).toMatch(message);
  });

  it('takes what the scheduler can run', () => {
    for (const pattern of ['0 2 * * *', '30 */6 * * *', '0 3 * * MON', '@daily', '0 0 2 * * *']) {
      expect(loadConfig({ ENVDATA_SYNC_CRON: pattern }).sync.cron).toBe(pattern);
    }
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

describe('ENVDATA_QUOTA and ENVDATA_SYNC_RESERVE', () => {
  it('reads calendar quotas, their time zone and a short test day; the reserve defaults to 10% of the day', () => {
    const config = loadConfig({
      ENVDATA_QUOTA: '50000/day, 1000000/month',
      ENVDATA_QUOTA_TIMEZONE: 'America/New_York',
      ENVDATA_QUOTA_DAY_SECONDS: '3',
    });
    expect(config.quota).toEqual({
      perDay: 50000,
      perMonth: 1_000_000,
      timeZone: 'America/New_York',
      daySeconds: 3,
      syncReserve: 5000,
    });
    expect(loadConfig({}).quota).toMatchObject({
      perDay: undefined,
      perMonth: undefined,
      daySeconds: 86_400,
      syncReserve: 0,
    });
    expect(
      loadConfig({ ENVDATA_QUOTA: '800/day', ENVDATA_SYNC_RESERVE: '120' }).quota,
    ).toMatchObject({ perDay: 800, syncReserve: 120 });
  });

  it('refuses ENVDATA_QUOTA=10/fortnight, naming the windows allowed', () => {
    expect(configError({ ENVDATA_QUOTA: '10/fortnight' })).toMatch(
      /ENVDATA_QUOTA \(got "10\/fortnight"\): "10\/fortnight" is not a quota: must be calls per calendar day or month .*\(windows: day, month\), or off/,
    );
    expect(configError({ ENVDATA_QUOTA: '10/day,20/day' })).toMatch(
      /ENVDATA_QUOTA .*sets the day twice/,
    );
  });

  it('refuses a reserve not below the daily quota, naming the range', () => {
    expect(configError({ ENVDATA_QUOTA: '1000/day', ENVDATA_SYNC_RESERVE: '1000' })).toMatch(
      /ENVDATA_SYNC_RESERVE \(got "1000"\): must be below the daily quota \(1000 calls\): from 0 to 999 calls/,
    );
    expect(configError({ ENVDATA_SYNC_RESERVE: '150%' })).toMatch(
      /ENVDATA_SYNC_RESERVE .*from 0% to below 100%/,
    );
    // A share that keeps the whole day is refused as the same number of calls is, not clamped.
    expect(configError({ ENVDATA_QUOTA: '50/day', ENVDATA_SYNC_RESERVE: '100%' })).toMatch(
      /ENVDATA_SYNC_RESERVE \(got "100%"\): must keep fewer calls than the daily quota \(50 calls\)/,
    );
    expect(configError({ ENVDATA_QUOTA: '50/day', ENVDATA_SYNC_RESERVE: '50' })).toMatch(
      /ENVDATA_SYNC_RESERVE \(got "50"\): must be below the daily quota \(50 calls\)/,
    );
    expect(
      loadConfig({ ENVDATA_QUOTA: '50/day', ENVDATA_SYNC_RESERVE: '99%' }).quota.syncReserve,
    ).toBe(49);
    expect(configError({ ENVDATA_QUOTA: '1000/month', ENVDATA_SYNC_RESERVE: '50' })).toMatch(
      /ENVDATA_SYNC_RESERVE .*no.*daily quota|ENVDATA_SYNC_RESERVE .*none is set/,
    );
  });

  it('refuses a time zone it does not know, naming the form allowed', () => {
    expect(configError({ ENVDATA_QUOTA_TIMEZONE: 'Mars/Olympus' })).toMatch(
      /ENVDATA_QUOTA_TIMEZONE \(got "Mars\/Olympus"\): must be an IANA time zone such as UTC/,
    );
  });

  it('refuses day windows in ENVDATA_RATE_LIMIT beside ENVDATA_QUOTA: which one counts would be ambiguous', () => {
    expect(
      configError({ ENVDATA_RATE_LIMIT: '20/s,50000/day', ENVDATA_QUOTA: '1000000/month' }),
    ).toMatch(
      /ENVDATA_RATE_LIMIT .*counts calls over a day or more \(50000\/day\) while ENVDATA_QUOTA is set/,
    );
  });

  it('refuses a quota day longer than a real one', () => {
    expect(configError({ ENVDATA_QUOTA_DAY_SECONDS: '90000' })).toMatch(
      /ENVDATA_QUOTA_DAY_SECONDS .*must be a whole number in/,
    );
  });
});

describe('ENVDATA_PRICE_PER_CALL and ENVDATA_BUDGET', () => {
  it('reads an exact price and a monthly budget, which caps the month at budget ÷ price calls', () => {
    const config = loadConfig({
      ENVDATA_PRICE_PER_CALL: '0.0004 EUR',
      ENVDATA_BUDGET: '300 eur/month',
      ENVDATA_QUOTA: '50000/day,1000000/month',
    });
    expect(config.money.price).toEqual({ nanos: 400_000n, currency: 'EUR' });
    expect(config.money.budget).toEqual({
      amount: { nanos: 300_000_000_000n, currency: 'EUR' },
      window: 'month',
    });
    expect(config.quota.budgetPerMonth).toBe(750_000);
    expect(loadConfig({}).money).toEqual({ price: undefined, budget: undefined });
    expect(loadConfig({ ENVDATA_PRICE_PER_CALL: '0 USD' }).money.price).toEqual({
      nanos: 0n,
      currency: 'USD',
    });
  });

  it('refuses a negative price, naming what is allowed', () => {
    expect(configError({ ENVDATA_PRICE_PER_CALL: '-0.0004 EUR' })).toMatch(
      /ENVDATA_PRICE_PER_CALL \(got "-0.0004 EUR"\): must not be negative: a price of 0 or more, such as 0.0004 EUR/,
    );
    expect(configError({ ENVDATA_PRICE_PER_CALL: '0.0004' })).toMatch(
      /ENVDATA_PRICE_PER_CALL .*must be an amount and a currency such as 0.0004 EUR/,
    );
    expect(configError({ ENVDATA_PRICE_PER_CALL: '0.0000000001 EUR' })).toMatch(
      /ENVDATA_PRICE_PER_CALL .*at most 9 decimal places/,
    );
  });

  it('refuses an unknown currency, naming ISO 4217', () => {
    expect(configError({ ENVDATA_PRICE_PER_CALL: '0.0004 EUX' })).toMatch(
      /ENVDATA_PRICE_PER_CALL \(got "0.0004 EUX"\): "EUX" is not a currency: must be an ISO 4217 currency code such as EUR, USD or GBP/,
    );
  });

  it('refuses a budget in another currency than the price, or without a price', () => {
    expect(
      configError({ ENVDATA_PRICE_PER_CALL: '0.0004 EUR', ENVDATA_BUDGET: '300 USD/month' }),
    ).toMatch(
      /ENVDATA_BUDGET \(got "300 USD\/month"\): is in USD but ENVDATA_PRICE_PER_CALL is in EUR: give both in the same currency \(EUR\)/,
    );
    expect(configError({ ENVDATA_BUDGET: '300 EUR/month' })).toMatch(
      /ENVDATA_BUDGET .*no price is set: set ENVDATA_PRICE_PER_CALL/,
    );
    expect(
      configError({ ENVDATA_PRICE_PER_CALL: '0 EUR', ENVDATA_BUDGET: '300 EUR/month' }),
    ).toMatch(/ENVDATA_BUDGET .*binds nothing at a price of 0/);
  });

  it('refuses a budget window other than the month, naming the one allowed', () => {
    expect(
      configError({ ENVDATA_PRICE_PER_CALL: '0.0004 EUR', ENVDATA_BUDGET: '10 EUR/day' }),
    ).toMatch(
      /ENVDATA_BUDGET \(got "10 EUR\/day"\): "day" is not a budget window: the window allowed is month/,
    );
    expect(
      configError({ ENVDATA_PRICE_PER_CALL: '0.0004 EUR', ENVDATA_BUDGET: '-5 EUR/month' }),
    ).toMatch(/ENVDATA_BUDGET .*must be above 0, such as 300 EUR\/month, or off/);
    // 0 and a negative amount get the same answer.
    for (const budget of ['0 EUR/month', '-1 EUR/month', '-0 EUR/month']) {
      expect(
        configError({ ENVDATA_PRICE_PER_CALL: '0.0004 EUR', ENVDATA_BUDGET: budget }),
        budget,
      ).toMatch(/ENVDATA_BUDGET \(got ".*"\): must be above 0, such as 300 EUR\/month, or off$/m);
    }
  });

  it('exits 2 on the command line, naming the variable and the values allowed', async () => {
    const negative = await runCliInProcess(['status'], { ENVDATA_PRICE_PER_CALL: '-1 EUR' });
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain(
      'ENVDATA_PRICE_PER_CALL (got "-1 EUR"): must not be negative: a price of 0 or more',
    );
    const mixed = await runCliInProcess(['status'], {
      ENVDATA_PRICE_PER_CALL: '0.0004 EUR',
      ENVDATA_BUDGET: '300 USD/month',
    });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('ENVDATA_BUDGET (got "300 USD/month"): is in USD');
  });
});
