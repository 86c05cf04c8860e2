import { z } from 'zod';
import { EnvdataError } from '../errors/envdata-error.js';
import { LOG_LEVELS, type Config } from './config.js';
import { ENVIRONMENT_VARIABLES, type EnvironmentVariableName } from './environment-variables.js';
import { rateLimitSchema } from './rate-limit.js';

export type Environment = Readonly<Record<string, string | undefined>>;

const positiveInt = (max = 1_000_000) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

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

/** `48h`, `7d` or a bare number of hours → whole hours. */
const hoursSchema = z
  .string()
  .regex(/^\d+\s*[hd]?$/i, 'must be whole hours such as 48h or 7d')
  .transform((v) => {
    const n = Number.parseInt(v, 10);
    return /d$/i.test(v.trim()) ? n * 24 : n;
  })
  .pipe(
    z
      .number()
      .int()
      .min(1, 'must be at least 1h')
      .max(24 * 366),
  );

const booleanSchema = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const schema = z.object({
  DATABASE_URL: postgresUrl,
  DATABASE_POOL_MAX: positiveInt(1000),
  REDIS_URL: redisUrl,
  ENVDATA_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, "_", "." or "-"'),
  ENVDATA_BASE_URL: httpUrl,
  ENVDATA_API_KEY: z.string().min(1, 'must not be empty when set').optional(),
  ENVDATA_LANGUAGE: z.string().optional(),
  ENVDATA_RATE_LIMIT: rateLimitSchema,
  ENVDATA_WORKER_CONCURRENCY: positiveInt(1000),
  ENVDATA_MAX_ATTEMPTS: positiveInt(1000),
  ENVDATA_RETRY_BASE_MS: positiveInt(3_600_000),
  ENVDATA_MAX_QUEUED_JOBS: positiveInt(1_000_000),
  ENVDATA_JOB_LOCK_MS: positiveInt(3_600_000),
  ENVDATA_HISTORY_WINDOW: hoursSchema,
  ENVDATA_ARCHIVE_RAW: booleanSchema,
  ENVDATA_SYNC_CRON: z
    .string()
    .regex(/^(\S+\s+){4,5}\S+$/, 'must be a cron pattern such as "0 2 * * *"'),
  ENVDATA_SYNC_LOOKBACK: hoursSchema,
  ENVDATA_SPECIES_RISK: booleanSchema,
  ENVDATA_FRESHNESS_MAX_LAG: hoursSchema,
  ENVDATA_HTTP_CONNECTIONS: positiveInt(1024),
  ENVDATA_HTTP_CONNECT_TIMEOUT_MS: positiveInt(600_000),
  ENVDATA_HTTP_TIMEOUT_MS: positiveInt(3_600_000),
  ENVDATA_HTTP_MAX_BODY_BYTES: positiveInt(1_073_741_824),
  ENVDATA_SHUTDOWN_TIMEOUT_MS: positiveInt(3_600_000),
  ENVDATA_IMPORT_MAX_ROWS: positiveInt(10_000_000),
  LOG_LEVEL: z.enum(LOG_LEVELS),
  LOG_FORMAT: z.enum(['json', 'pretty', 'auto']),
} satisfies Record<EnvironmentVariableName, z.ZodType>);

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
  const result = schema.safeParse(input);
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
    redisUrl: e.REDIS_URL,
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
    rateLimits: e.ENVDATA_RATE_LIMIT,
    worker: {
      concurrency: e.ENVDATA_WORKER_CONCURRENCY,
      maxAttempts: e.ENVDATA_MAX_ATTEMPTS,
      retryBaseMs: e.ENVDATA_RETRY_BASE_MS,
      shutdownTimeoutMs: e.ENVDATA_SHUTDOWN_TIMEOUT_MS,
      maxQueuedJobs: e.ENVDATA_MAX_QUEUED_JOBS,
      jobLockMs: e.ENVDATA_JOB_LOCK_MS,
    },
    ingest: {
      historyWindowHours: e.ENVDATA_HISTORY_WINDOW,
      archiveRaw: e.ENVDATA_ARCHIVE_RAW,
      speciesRisk: e.ENVDATA_SPECIES_RISK,
    },
    sync: {
      cron: e.ENVDATA_SYNC_CRON,
      lookbackHours: e.ENVDATA_SYNC_LOOKBACK,
      maxLagHours: e.ENVDATA_FRESHNESS_MAX_LAG,
    },
    locations: { importMaxRows: e.ENVDATA_IMPORT_MAX_ROWS },
    log: { level: e.LOG_LEVEL, format },
  });
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
