import { z } from 'zod';
import { EnvdataError } from '../errors/envdata-error.js';
import { LOG_LEVELS, NOTIFY_FORMATS, QUEUE_BACKENDS, type Config } from './config.js';
import { cronPatternProblem } from './cron-pattern-problem.js';
import {
  ENVIRONMENT_VARIABLES,
  type EnvironmentVariableName,
  type ValueRange,
} from './environment-variables.js';
import { formatRange } from './format-range.js';
import { rateLimitSchema, type RateLimitRule } from './rate-limit.js';
import { isTimeZoneName, quotaSchema, syncReserveSchema } from './quota.js';
import { budgetSchema, callsOfBudget, priceSchema } from './money.js';
import { consoleHostsSchema } from './console-hosts.js';
import { notifyEventsSchema } from './notify-events-schema.js';
import { notifyTargetsSchema } from './notify-targets.js';
import { redisClusterNodesSchema } from './redis-cluster-nodes.js';
import { driftPolicySchema } from './drift-policy.js';
import { revisedShareSchema } from './revised-share.js';
import { plainZodMessage } from '../errors/plain-zod-message.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The calls per day of a `N/day` rule of ENVDATA_RATE_LIMIT: it is read as a calendar-day quota. */
function dailyRuleOf(rules: readonly RateLimitRule[]): number | undefined {
  return rules.find((r) => r.durationMs === DAY_MS)?.max;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** The range the table gives a variable (`ENVIRONMENT_VARIABLES`), which every number has. */
function rangeOf(name: EnvironmentVariableName): ValueRange {
  const variable = ENVIRONMENT_VARIABLES.find((v) => v.name === name);
  if (variable === undefined || !('range' in variable)) {
    throw new Error(`${name} has no range in environment-variables.ts`);
  }
  return variable.range;
}

/** A whole number (count or milliseconds) within the variable's range. */
const wholeNumber = (name: EnvironmentVariableName) => {
  const range = rangeOf(name);
  const allowed = `must be a whole number in ${formatRange(range)}`;
  return z
    .string()
    .regex(/^\d+$/, allowed)
    .transform(Number)
    .pipe(z.number().int().min(range.min, allowed).max(range.max, allowed));
};

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), 'must be a postgres:// URL');
const redisUrl = z
  .string()
  .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), 'must be a redis:// URL');
const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), 'must be an http(s):// URL')
  .transform((v) => v.replace(/\/+$/, ''));

/** `48h`, `7d` or a bare number of hours → whole hours, within the variable's range. */
const hours = (name: EnvironmentVariableName) => {
  const range = rangeOf(name);
  const allowed = `must be whole hours such as 48h or 7d, in ${formatRange(range)}`;
  return z
    .string()
    .regex(/^\d+\s*[hd]?$/i, allowed)
    .transform((v) => {
      const n = Number.parseInt(v, 10);
      return /d$/i.test(v.trim()) ? n * 24 : n;
    })
    .pipe(z.number().int().min(range.min, allowed).max(range.max, allowed));
};

const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: HOUR_MS,
  d: 24 * HOUR_MS,
};

/**
 * `30s`, `15m`, `2h`, `1d` or `1500ms` → milliseconds, within the variable's range. The unit is
 * required: a bare number could be seconds or milliseconds, the very mix-up such a bound guards
 * against.
 */
const duration = (name: EnvironmentVariableName) => {
  const range = rangeOf(name);
  const allowed = `must be a duration such as 30s, 15m or 2h, in ${formatRange(range)}`;
  return z
    .string()
    .regex(/^\s*\d+\s*(ms|s|m|h|d)\s*$/i, allowed)
    .transform((v) => {
      const [, n = '', unit = ''] = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/i.exec(v)!;
      return Number(n) * DURATION_UNIT_MS[unit.toLowerCase()]!;
    })
    .pipe(z.number().int().min(range.min, allowed).max(range.max, allowed));
};

/** ENVDATA_HISTORY_WINDOW: whole hours as `hours` reads them, or `auto` (learned per key). */
const historyWindow = (() => {
  const fixed = hours('ENVDATA_HISTORY_WINDOW');
  return z.string().transform((v, ctx): number | 'auto' => {
    if (/^\s*auto\s*$/i.test(v)) return 'auto';
    const parsed = fixed.safeParse(v);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: `${issue.message}, or auto` });
    }
    return z.NEVER;
  });
})();

const cronSchema = z.string().superRefine((pattern, ctx) => {
  const problem = cronPatternProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const booleanSchema = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const schema = z.object({
  DATABASE_URL: postgresUrl,
  DATABASE_POOL_MAX: wholeNumber('DATABASE_POOL_MAX'),
  DATABASE_PREPARED_STATEMENTS: booleanSchema,
  ENVDATA_QUEUE_BACKEND: z.enum(QUEUE_BACKENDS, {
    error: `must be one of ${QUEUE_BACKENDS.join(', ')}`,
  }),
  REDIS_URL: redisUrl,
  REDIS_CLUSTER_NODES: redisClusterNodesSchema.optional(),
  ENVDATA_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, "_", "." or "-"'),
  ENVDATA_BASE_URL: httpUrl,
  ENVDATA_API_KEY: z.string().min(1, 'must not be empty when set').optional(),
  ENVDATA_CONSOLE_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 24`)')
    .optional(),
  ENVDATA_CONSOLE_HOSTS: consoleHostsSchema.optional(),
  ENVDATA_TRACE_URL: z
    .string()
    .refine((v) => v.includes('{traceId}'), 'must contain {traceId}, where a trace id goes')
    .refine((v) => /^https?:\/\/[^\s]+$/i.test(v), 'must be an http:// or https:// address')
    .optional(),
  ENVDATA_LANGUAGE: z.string().optional(),
  ENVDATA_RATE_LIMIT: rateLimitSchema,
  ENVDATA_QUOTA: quotaSchema,
  ENVDATA_QUOTA_TIMEZONE: z
    .string()
    .refine(
      isTimeZoneName,
      'must be an IANA time zone such as UTC, Europe/Berlin or America/New_York',
    ),
  ENVDATA_SYNC_RESERVE: syncReserveSchema,
  ENVDATA_PRICE_PER_CALL: priceSchema,
  ENVDATA_BUDGET: budgetSchema,
  ENVDATA_QUOTA_DAY_SECONDS: wholeNumber('ENVDATA_QUOTA_DAY_SECONDS'),
  ENVDATA_WORKER_CONCURRENCY: wholeNumber('ENVDATA_WORKER_CONCURRENCY'),
  ENVDATA_MAX_ATTEMPTS: wholeNumber('ENVDATA_MAX_ATTEMPTS'),
  ENVDATA_RETRY_BASE_MS: wholeNumber('ENVDATA_RETRY_BASE_MS'),
  ENVDATA_MAX_PAUSE: duration('ENVDATA_MAX_PAUSE'),
  ENVDATA_MAX_QUEUED_JOBS: wholeNumber('ENVDATA_MAX_QUEUED_JOBS'),
  ENVDATA_JOB_LOCK_MS: wholeNumber('ENVDATA_JOB_LOCK_MS'),
  ENVDATA_WORKER_HEARTBEAT: duration('ENVDATA_WORKER_HEARTBEAT'),
  ENVDATA_HISTORY_WINDOW: historyWindow,
  ENVDATA_REFETCH_ATTEMPTS: wholeNumber('ENVDATA_REFETCH_ATTEMPTS'),
  ENVDATA_REFETCH_DELAY_MS: wholeNumber('ENVDATA_REFETCH_DELAY_MS'),
  ENVDATA_MISSING_RECHECK: hours('ENVDATA_MISSING_RECHECK'),
  ENVDATA_NO_DATA_RECHECK: hours('ENVDATA_NO_DATA_RECHECK'),
  ENVDATA_CHUNK_RETENTION: hours('ENVDATA_CHUNK_RETENTION'),
  ENVDATA_ARCHIVE_RAW: booleanSchema,
  ENVDATA_ARCHIVE_RETENTION_DAYS: wholeNumber('ENVDATA_ARCHIVE_RETENTION_DAYS').optional(),
  ENVDATA_SYNC_CRON: cronSchema,
  ENVDATA_EXPORT_DIR: z.string().trim().min(1).optional(),
  ENVDATA_EXPORT_CRON: cronSchema.optional(),
  ENVDATA_SYNC_LOOKBACK: hours('ENVDATA_SYNC_LOOKBACK'),
  ENVDATA_SYNC_HORIZON: hours('ENVDATA_SYNC_HORIZON'),
  ENVDATA_SNAPSHOT_RETENTION: hours('ENVDATA_SNAPSHOT_RETENTION').optional(),
  ENVDATA_SPECIES_RISK: booleanSchema,
  ENVDATA_DRIFT_POLICY: driftPolicySchema,
  ENVDATA_FRESHNESS_MAX_LAG: hours('ENVDATA_FRESHNESS_MAX_LAG'),
  ENVDATA_NOTIFY_URL: notifyTargetsSchema.optional(),
  ENVDATA_NOTIFY_FORMAT: z.enum(NOTIFY_FORMATS, {
    error: `must be one of ${NOTIFY_FORMATS.join(', ')}`,
  }),
  ENVDATA_NOTIFY_EVENTS: notifyEventsSchema,
  ENVDATA_NOTIFY_MAX_AGE: duration('ENVDATA_NOTIFY_MAX_AGE'),
  ENVDATA_NO_WORKER_ALERT: duration('ENVDATA_NO_WORKER_ALERT'),
  ENVDATA_OPENLINEAGE_URL: z
    .string()
    .refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url), {
      message: 'must be an http(s):// URL (the OpenLineage receiver, such as Marquez)',
    })
    .optional(),
  ENVDATA_OPENLINEAGE_API_KEY: z.string().min(1).optional(),
  ENVDATA_OPENLINEAGE_NAMESPACE: z.string().min(1),
  ENVDATA_ALERT_REVISED_SHARE: revisedShareSchema,
  ENVDATA_HTTP_CONNECTIONS: wholeNumber('ENVDATA_HTTP_CONNECTIONS'),
  ENVDATA_HTTP_CONNECT_TIMEOUT_MS: wholeNumber('ENVDATA_HTTP_CONNECT_TIMEOUT_MS'),
  ENVDATA_HTTP_TIMEOUT_MS: wholeNumber('ENVDATA_HTTP_TIMEOUT_MS'),
  ENVDATA_HTTP_MAX_BODY_BYTES: wholeNumber('ENVDATA_HTTP_MAX_BODY_BYTES'),
  ENVDATA_SHUTDOWN_TIMEOUT_MS: wholeNumber('ENVDATA_SHUTDOWN_TIMEOUT_MS'),
  ENVDATA_IMPORT_MAX_ROWS: wholeNumber('ENVDATA_IMPORT_MAX_ROWS'),
  LOG_LEVEL: z.enum(LOG_LEVELS),
  LOG_FORMAT: z.enum(['json', 'pretty', 'auto']),
  NO_COLOR: z.string().optional(),
} satisfies Record<EnvironmentVariableName, z.ZodType>);

/** Problems of variables that are each valid alone but not together. */
function crossCheck(e: z.output<typeof schema>, ctx: z.RefinementCtx): void {
  if (e.ENVDATA_EXPORT_CRON !== undefined && e.ENVDATA_EXPORT_DIR === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['ENVDATA_EXPORT_CRON'],
      message:
        'schedules an export but ENVDATA_EXPORT_DIR does not say where: set both, or neither',
    });
  }
  const { perDay, perMonth } = e.ENVDATA_QUOTA;
  const longRules = e.ENVDATA_RATE_LIMIT.filter((r) => r.durationMs >= DAY_MS).map((r) => r.label);
  if (longRules.length > 0 && (perDay !== undefined || perMonth !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['ENVDATA_RATE_LIMIT'],
      message: `counts calls over a day or more (${longRules.join(', ')}) while ENVDATA_QUOTA is set: keep the short rules (per second, minute or hour) in ENVDATA_RATE_LIMIT and put every daily or monthly limit in ENVDATA_QUOTA (50000/day,1000000/month)`,
    });
  }
  const reserve = e.ENVDATA_SYNC_RESERVE;
  if (reserve.calls !== undefined && reserve.calls > 0) {
    const daily = perDay ?? dailyRuleOf(e.ENVDATA_RATE_LIMIT);
    if (daily === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENVDATA_SYNC_RESERVE'],
        message:
          'keeps calls of a daily quota, but none is set: set ENVDATA_QUOTA (such as 50000/day), or set ENVDATA_SYNC_RESERVE to 0',
      });
    } else if (reserve.calls >= daily) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENVDATA_SYNC_RESERVE'],
        message: `must be below the daily quota (${daily} calls): from 0 to ${daily - 1} calls, or a share such as 10%`,
      });
    }
  }
  if (reserve.percent !== undefined) {
    // A share is refused as a number is: one that keeps the whole day leaves backfills nothing.
    const daily = perDay ?? dailyRuleOf(e.ENVDATA_RATE_LIMIT);
    if (daily !== undefined && Math.floor((daily * reserve.percent) / 100) >= daily) {
      ctx.addIssue({
        code: 'custom',
        path: ['ENVDATA_SYNC_RESERVE'],
        message: `must keep fewer calls than the daily quota (${daily} calls): a share below 100% such as 10%, or from 0 to ${daily - 1} calls`,
      });
    }
  }
  const { ENVDATA_PRICE_PER_CALL: price, ENVDATA_BUDGET: budget } = e;
  if (budget !== undefined) {
    const problem =
      price === undefined
        ? 'is a budget in money, but no price is set: set ENVDATA_PRICE_PER_CALL (such as 0.0004 EUR), or set ENVDATA_BUDGET to off'
        : price.currency !== budget.amount.currency
          ? `is in ${budget.amount.currency} but ENVDATA_PRICE_PER_CALL is in ${price.currency}: give both in the same currency (${price.currency})`
          : price.nanos === 0n
            ? 'binds nothing at a price of 0 per call: set ENVDATA_PRICE_PER_CALL above 0, or set ENVDATA_BUDGET to off'
            : undefined;
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['ENVDATA_BUDGET'], message: problem });
    }
  }
  if (e.REDIS_CLUSTER_NODES !== undefined && e.ENVDATA_QUEUE_BACKEND === 'postgres') {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_CLUSTER_NODES'],
      message:
        'is set, but ENVDATA_QUEUE_BACKEND=postgres keeps the queue in PostgreSQL and uses no Redis: unset REDIS_CLUSTER_NODES, or set ENVDATA_QUEUE_BACKEND=redis',
    });
  }
}

export interface LoadConfigOptions {
  /** Whether standard output is a terminal; decides `LOG_FORMAT=auto`. */
  isTty?: boolean;
}

/**
 * Reads the environment once, validates every variable and returns a frozen `Config`.
 * Throws one `EnvdataError('CONFIG_INVALID')` that lists every problem.
 *
 * @example const config = loadConfig(io.env, { isTty: io.stderr.isTTY }); // io: see src/cli/cli-io.ts
 */
export function loadConfig(env: Environment, options: LoadConfigOptions = {}): Config {
  const input: Record<string, string | undefined> = {};
  for (const variable of ENVIRONMENT_VARIABLES) {
    const raw = env[variable.name];
    input[variable.name] = raw === undefined || raw === '' ? variable.default : raw;
  }
  // Plain messages (`must be …`) where a schema sets none of its own.
  const result = schema.superRefine(crossCheck).safeParse(input, { error: plainZodMessage });
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      const secret = ENVIRONMENT_VARIABLES.some((v) => v.name === name && 'secret' in v);
      const shown = secret || input[name] === undefined ? '' : ` (got "${input[name]}")`;
      return `  ${name}${shown}: ${issue.message}`;
    });
    throw new EnvdataError(
      'CONFIG_INVALID',
      `Invalid configuration — fix these environment variables (see .env.example):\n${problems.join('\n')}`,
      { details: { problems } },
    );
  }
  const e = result.data;
  const format = e.LOG_FORMAT === 'auto' ? (options.isTty ? 'pretty' : 'json') : e.LOG_FORMAT;
  return deepFreeze({
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    queueBackend: e.ENVDATA_QUEUE_BACKEND,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES ?? [],
    queuePrefix: e.ENVDATA_QUEUE_PREFIX,
    service: {
      baseUrl: e.ENVDATA_BASE_URL,
      apiKey: e.ENVDATA_API_KEY,
      language: e.ENVDATA_LANGUAGE,
      connections: e.ENVDATA_HTTP_CONNECTIONS,
      connectTimeoutMs: e.ENVDATA_HTTP_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: e.ENVDATA_HTTP_TIMEOUT_MS,
      maxBodyBytes: e.ENVDATA_HTTP_MAX_BODY_BYTES,
    },
    // A `N/day` rule is the plan's daily quota: counted on the provider's calendar days.
    rateLimits: e.ENVDATA_RATE_LIMIT.filter((r) => r.durationMs !== DAY_MS),
    quota: quotaOf(e),
    money: { price: e.ENVDATA_PRICE_PER_CALL, budget: e.ENVDATA_BUDGET },
    console: {
      token: e.ENVDATA_CONSOLE_TOKEN,
      hosts: e.ENVDATA_CONSOLE_HOSTS ?? [],
      traceUrl: e.ENVDATA_TRACE_URL,
    },
    worker: {
      concurrency: e.ENVDATA_WORKER_CONCURRENCY,
      maxAttempts: e.ENVDATA_MAX_ATTEMPTS,
      retryBaseMs: e.ENVDATA_RETRY_BASE_MS,
      shutdownTimeoutMs: e.ENVDATA_SHUTDOWN_TIMEOUT_MS,
      maxQueuedJobs: e.ENVDATA_MAX_QUEUED_JOBS,
      maxPauseMs: e.ENVDATA_MAX_PAUSE,
      jobLockMs: e.ENVDATA_JOB_LOCK_MS,
      heartbeatMs: e.ENVDATA_WORKER_HEARTBEAT,
      chunkRetentionMs: e.ENVDATA_CHUNK_RETENTION * HOUR_MS,
    },
    ingest: {
      historyWindowHours:
        // auto starts at the 48 h every plan accepts (START_WINDOW_HOURS, src/windows/).
        e.ENVDATA_HISTORY_WINDOW === 'auto' ? 48 : e.ENVDATA_HISTORY_WINDOW,
      historyWindowAuto: e.ENVDATA_HISTORY_WINDOW === 'auto',
      archiveRaw: e.ENVDATA_ARCHIVE_RAW,
      archiveRetentionDays: e.ENVDATA_ARCHIVE_RETENTION_DAYS,
      speciesRisk: e.ENVDATA_SPECIES_RISK,
      driftPolicy: e.ENVDATA_DRIFT_POLICY,
      refetchAttempts: e.ENVDATA_REFETCH_ATTEMPTS,
      refetchDelayMs: e.ENVDATA_REFETCH_DELAY_MS,
      recheckMs: e.ENVDATA_MISSING_RECHECK * HOUR_MS,
      noDataRecheckMs: e.ENVDATA_NO_DATA_RECHECK * HOUR_MS,
    },
    sync: {
      cron: e.ENVDATA_SYNC_CRON,
      exportDir: e.ENVDATA_EXPORT_DIR,
      exportCron: e.ENVDATA_EXPORT_CRON,
      lookbackHours: e.ENVDATA_SYNC_LOOKBACK,
      maxLagHours: e.ENVDATA_FRESHNESS_MAX_LAG,
      horizonHours: e.ENVDATA_SYNC_HORIZON,
      snapshotRetentionMs:
        e.ENVDATA_SNAPSHOT_RETENTION === undefined
          ? undefined
          : e.ENVDATA_SNAPSHOT_RETENTION * HOUR_MS,
    },
    notify: {
      targets: e.ENVDATA_NOTIFY_URL ?? [],
      format: e.ENVDATA_NOTIFY_FORMAT,
      events: e.ENVDATA_NOTIFY_EVENTS,
      maxAgeMs: e.ENVDATA_NOTIFY_MAX_AGE,
      noWorkerAlertMs: e.ENVDATA_NO_WORKER_ALERT,
      revisedShare: e.ENVDATA_ALERT_REVISED_SHARE,
    },
    lineage:
      e.ENVDATA_OPENLINEAGE_URL === undefined
        ? undefined
        : {
            endpoint: lineageEndpoint(e.ENVDATA_OPENLINEAGE_URL),
            apiKey: e.ENVDATA_OPENLINEAGE_API_KEY,
            namespace: e.ENVDATA_OPENLINEAGE_NAMESPACE,
          },
    locations: { importMaxRows: e.ENVDATA_IMPORT_MAX_ROWS },
    log: { level: e.LOG_LEVEL, format, color: e.NO_COLOR === undefined },
  });
}

/** The quota settings, a `N/day` rule of ENVDATA_RATE_LIMIT folded in as the daily quota. */
function quotaOf(e: z.output<typeof schema>): Config['quota'] {
  const perDay = e.ENVDATA_QUOTA.perDay ?? dailyRuleOf(e.ENVDATA_RATE_LIMIT);
  const reserve = e.ENVDATA_SYNC_RESERVE;
  const syncReserve =
    perDay === undefined
      ? 0
      : (reserve.calls ?? Math.floor((perDay * (reserve.percent ?? 0)) / 100));
  return {
    perDay,
    perMonth: e.ENVDATA_QUOTA.perMonth,
    timeZone: e.ENVDATA_QUOTA_TIMEZONE,
    daySeconds: e.ENVDATA_QUOTA_DAY_SECONDS,
    syncReserve: Math.min(syncReserve, perDay === undefined ? 0 : perDay - 1),
    budgetPerMonth:
      e.ENVDATA_BUDGET && e.ENVDATA_PRICE_PER_CALL
        ? callsOfBudget(e.ENVDATA_BUDGET, e.ENVDATA_PRICE_PER_CALL)
        : undefined,
  };
}

/** A config for code that builds its own (tests, the demo): defaults overridden by `env`. */
export function configFromDefaults(env: Environment = {}): Config {
  return loadConfig(env, { isTty: false });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Where OpenLineage events are POSTed: `<url>/api/v1/lineage`, as OpenLineage's HTTP transport
 * does by default, unless the URL's path already ends in `/lineage` (a full endpoint).
 */
export function lineageEndpoint(url: string): string {
  const parsed = new URL(url);
  if (/\/lineage\/?$/.test(parsed.pathname)) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/api/v1/lineage`;
  return parsed.href;
}
