import { EnvdataError } from '../errors/envdata-error.js';
import { readFaultSettings } from '../simulator/faults/read-fault-settings.js';
import type { FaultSettings } from '../simulator/faults/fault-settings.js';
import { SHAPE_VARIANT_NAMES, type ShapeVariants } from '../simulator/render/shape-variants.js';
import { API_PRODUCTS, type ApiProduct } from '../simulator/simulator-endpoints.js';
import { isTimeZone } from '../simulator/access/is-time-zone.js';
import {
  DEFAULT_SIMULATOR_OPTIONS,
  type QuotaOption,
  type RateLimitOption,
  type RetryAfterMode,
  type ReviseOption,
  type SimulatorOptions,
} from '../simulator/simulator-options.js';
import type { Environment } from '../config/load-config.js';
import { parseRateLimits } from '../config/rate-limit.js';
import { SIMULATOR_ENVIRONMENT_VARIABLES } from './simulator-environment-variables.js';

export { SIMULATOR_ENVIRONMENT_VARIABLES };

/** What a variable's parser returns when the text is wrong: the reason. */
class Problem {
  constructor(readonly reason: string) {}
}

type SimulatorEnvironmentVariableName = (typeof SIMULATOR_ENVIRONMENT_VARIABLES)[number]['name'];

/**
 * Parses the `ENVDATA_SIM_*` variables of `env` (passed in; the process environment is never read here)
 * into simulator options, defaults applied. Throws one `EnvdataError('CONFIG_INVALID')` listing
 * every problem; key values never appear in messages.
 *
 * @example const sim = await startSimulator(parseSimulatorEnvironment(io.env));
 */
export function parseSimulatorEnvironment(env: Environment): SimulatorOptions {
  const value = (name: SimulatorEnvironmentVariableName): string => {
    const raw = env[name];
    const fallback = SIMULATOR_ENVIRONMENT_VARIABLES.find((v) => v.name === name)?.default;
    return (raw === undefined || raw.trim() === '' ? fallback : raw)?.trim() ?? '';
  };
  const problems: string[] = [];
  const check = <T>(
    name: SimulatorEnvironmentVariableName,
    parse: (text: string) => T | Problem,
    shown = true,
  ): T | undefined => {
    const text = value(name);
    const result = parse(text);
    if (result instanceof Problem) {
      problems.push(`  ${name}${shown ? ` (got "${text}")` : ''}: ${result.reason}`);
      return undefined;
    }
    return result;
  };

  const port = check('ENVDATA_SIM_PORT', (t) =>
    /^\d+$/.test(t) && Number(t) <= 65_535
      ? Number(t)
      : new Problem('must be a port number 0–65535'),
  );
  const host = check('ENVDATA_SIM_HOST', (t) => (t === '' ? new Problem('must not be empty') : t));
  const keys = check('ENVDATA_SIM_KEYS', parseKeys, false);
  const maxRangeHours = check('ENVDATA_SIM_MAX_RANGE_HOURS', parseHours);
  const retryAfter = check('ENVDATA_SIM_RETRY_AFTER', parseRetryAfter);
  const rateLimit = check('ENVDATA_SIM_RATE_LIMIT', (t) => parseRateLimit(t, retryAfter));
  const daily = check('ENVDATA_SIM_DAILY_QUOTA', parseQuotaCalls);
  const monthly = check('ENVDATA_SIM_MONTHLY_QUOTA', parseQuotaCalls);
  const timeZone = check('ENVDATA_SIM_QUOTA_TIME_ZONE', (t) =>
    isTimeZone(t) ? t : new Problem('must be an IANA time zone such as UTC or Europe/Berlin'),
  );
  const quotaRetryAfter = check('ENVDATA_SIM_QUOTA_RETRY_AFTER', parseRetryAfter);
  const daySeconds = check('ENVDATA_SIM_DAY_SECONDS', (t) =>
    /^\d+$/.test(t) && Number(t) >= 1 && Number(t) <= 86_400
      ? Number(t)
      : new Problem('must be whole seconds from 1 to 86400 (a real day)'),
  );
  if (
    daily?.status !== undefined &&
    monthly?.status !== undefined &&
    daily.status !== monthly.status
  ) {
    problems.push(
      '  ENVDATA_SIM_DAILY_QUOTA, ENVDATA_SIM_MONTHLY_QUOTA: the quota has one status; give both the same /422 or /429, or only one',
    );
  }
  const seed = check('ENVDATA_SIM_FAULT_SEED', (t) =>
    /^\d+$/.test(t) ? Number(t) : new Problem('must be a whole number'),
  );
  const faults = check('ENVDATA_SIM_FAULTS', (t): FaultSettings | Problem => {
    try {
      const settings = readFaultSettings(t);
      // A `seed=N` inside the spec wins over ENVDATA_SIM_FAULT_SEED.
      return { ...settings, seed: settings.seed ?? seed ?? 1 };
    } catch (error) {
      return new Problem((error as Error).message);
    }
  });
  const legacyShapes = check('ENVDATA_SIM_LEGACY_SHAPES', parseShapes);
  const now = check('ENVDATA_SIM_NOW', (t) =>
    t === '' ? null : Number.isNaN(Date.parse(t)) ? new Problem('must be an ISO-8601 instant') : t,
  );
  const revise = check('ENVDATA_SIM_REVISE', parseRevise);
  const admin = check('ENVDATA_SIM_ADMIN', (t) =>
    ['on', 'true', '1'].includes(t)
      ? true
      : ['off', 'false', '0'].includes(t)
        ? false
        : new Problem('must be on or off'),
  );

  const adminToken = value('ENVDATA_SIM_ADMIN_TOKEN') || undefined;

  if (problems.length > 0) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `Invalid simulator configuration — fix these environment variables:\n${problems.join('\n')}`,
      { details: { problems } },
    );
  }
  return Object.freeze({
    ...DEFAULT_SIMULATOR_OPTIONS,
    port: port!,
    host: host!,
    keys: keys!,
    maxRangeHours: maxRangeHours!,
    rateLimit: rateLimit!,
    quota: quotaOf(daily!, monthly!, timeZone!, quotaRetryAfter!),
    dailyQuota: null,
    daySeconds: daySeconds!,
    faults: faults!,
    legacyShapes: legacyShapes!,
    now: now!,
    revise: revise!,
    admin: admin!,
    adminToken,
  });
}

function parseKeys(text: string): Record<string, readonly ApiProduct[]> | Problem {
  const keys: Record<string, readonly ApiProduct[]> = {};
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) return new Problem('must list at least one key');
  for (const [i, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const key = colon === -1 ? entry : entry.slice(0, colon);
    const list = colon === -1 ? '*' : entry.slice(colon + 1).trim();
    if (key === '' || /\s/.test(key))
      return new Problem(`entry ${i + 1} has an empty key or one with spaces`);
    if (list === '*' || list === 'all') {
      keys[key] = API_PRODUCTS;
      continue;
    }
    const products = list.split('+').map((p) => p.trim());
    const unknown = products.filter((p) => !(API_PRODUCTS as readonly string[]).includes(p));
    if (unknown.length > 0 || products.length === 0) {
      return new Problem(
        `entry ${i + 1}: products must be * or ${API_PRODUCTS.join('+')} (got ${unknown.join(', ')})`,
      );
    }
    keys[key] = products as ApiProduct[];
  }
  return keys;
}

function parseRetryAfter(text: string): RetryAfterMode | Problem {
  if (text === 'always' || text === 'sometimes' || text === 'never') return text;
  return new Problem('must be always, sometimes or never');
}

function parseHours(text: string): number | Problem {
  const m = /^(\d+)\s*([hd]?)$/i.exec(text);
  if (!m) return new Problem('must be whole hours such as 48, 48h or 2d');
  const hours = Number(m[1]) * (m[2]?.toLowerCase() === 'd' ? 24 : 1);
  return hours >= 1 && hours <= 24 * 366 ? hours : new Problem('must be between 1h and 366d');
}

function parseRateLimit(
  text: string,
  retryAfter: RetryAfterMode | undefined,
): RateLimitOption | null | Problem {
  const rules = parseRateLimits(text);
  if (typeof rules === 'string') return new Problem(rules);
  if (rules.length > 1)
    return new Problem('takes one rate such as 20/s (use ENVDATA_SIM_DAILY_QUOTA for a daily cap)');
  const [rule] = rules;
  if (rule === undefined) return null;
  return { max: rule.max, durationMs: rule.durationMs, retryAfter: retryAfter ?? 'always' };
}

/** Calls per quota window and the status its answer gives, if the text names one. */
interface QuotaCalls {
  readonly max: number;
  readonly status: 429 | 422 | undefined;
}

function parseQuotaCalls(text: string): QuotaCalls | null | Problem {
  if (text === 'off' || text === 'none') return null;
  const m = /^(\d+)(?:\s*\/\s*(429|422))?$/.exec(text);
  if (!m)
    return new Problem('must be a number of calls, optionally /429 or /422 (5000/422), or off');
  return {
    max: Number(m[1]),
    status: m[2] === undefined ? undefined : m[2] === '422' ? 422 : 429,
  };
}

function quotaOf(
  daily: QuotaCalls | null,
  monthly: QuotaCalls | null,
  timeZone: string,
  retryAfter: RetryAfterMode,
): QuotaOption | null {
  if (daily === null && monthly === null) return null;
  return {
    ...(daily === null ? {} : { perDay: daily.max }),
    ...(monthly === null ? {} : { perMonth: monthly.max }),
    timeZone,
    status: daily?.status ?? monthly?.status ?? 429,
    retryAfter,
  };
}

function parseRevise(text: string): ReviseOption | null | Problem {
  if (text === 'off' || text === 'none') return null;
  const m = /^(\d+(?:\.\d+)?)(%?)(?::(.{1,64}))?$/.exec(text);
  const share = m === null ? NaN : Number(m[1]) / (m[2] === '%' ? 100 : 1);
  if (m === null || !(share >= 0 && share <= 1)) {
    return new Problem(
      'must be a share of hours from 0 to 1 or 0% to 100% (0.25, 25%), optionally :SEED (25%:v2), or off',
    );
  }
  return m[3] === undefined ? { share } : { share, seed: m[3] };
}

function parseShapes(text: string): boolean | Partial<ShapeVariants> | Problem {
  const lower = text.toLowerCase();
  if (lower === 'off' || lower === 'false' || lower === 'none') return false;
  if (lower === 'all' || lower === 'on' || lower === 'true') return true;
  const variants: Record<string, boolean | string> = {};
  for (const name of lower
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')) {
    const key = (SHAPE_VARIANT_NAMES as Record<string, keyof ShapeVariants | undefined>)[name];
    if (key === undefined) {
      return new Problem(
        `unknown variant "${name}" (one of ${Object.keys(SHAPE_VARIANT_NAMES).join(', ')}, or all/off)`,
      );
    }
    variants[key] = key === 'speciesRiskKey' ? 'Risks' : true;
  }
  return variants as Partial<ShapeVariants>;
}
