import { z } from 'zod';

/** A calendar window a provider counts a quota over. */
export type QuotaWindowName = 'day' | 'month';

/** What capped a window: the plan's quota (ENVDATA_QUOTA) or the money budget (ENVDATA_BUDGET). */
export type QuotaLimitedBy = 'quota' | 'budget';

/**
 * The month's cap: the tighter of ENVDATA_QUOTA's month and the calls ENVDATA_BUDGET pays for
 * (a tie is the quota's); `undefined` when neither is set.
 */
export function monthCapOf(quota: {
  readonly perMonth: number | undefined;
  readonly budgetPerMonth?: number | undefined;
}): { limit: number; by: QuotaLimitedBy } | undefined {
  const { perMonth, budgetPerMonth } = quota;
  if (budgetPerMonth !== undefined && (perMonth === undefined || budgetPerMonth < perMonth)) {
    return { limit: budgetPerMonth, by: 'budget' };
  }
  return perMonth === undefined ? undefined : { limit: perMonth, by: 'quota' };
}

/** The plan's quotas (ENVDATA_QUOTA): at most `perDay` calls per calendar day, `perMonth` per month. */
export interface QuotaLimits {
  readonly perDay: number | undefined;
  readonly perMonth: number | undefined;
}

const WINDOW_OF: Readonly<Record<string, QuotaWindowName>> = {
  d: 'day',
  day: 'day',
  daily: 'day',
  mo: 'month',
  month: 'month',
  monthly: 'month',
};

const ALLOWED =
  'calls per calendar day or month such as 50000/day or 50000/day,1000000/month (windows: day, month), or off';

/**
 * Parses `50000/day`, `1000000/month` or both, comma-separated; `off` (or empty) sets none. Each
 * window at most once.
 */
export function parseQuota(text: string): QuotaLimits | string {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'off' || trimmed === 'none') {
    return { perDay: undefined, perMonth: undefined };
  }
  const limits: { perDay?: number; perMonth?: number } = {};
  for (const part of trimmed.split(',')) {
    const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/i.exec(part);
    const window = match ? WINDOW_OF[match[2]!.toLowerCase()] : undefined;
    if (!match || window === undefined)
      return `"${part.trim()}" is not a quota: must be ${ALLOWED}`;
    const max = Number(match[1]);
    if (!Number.isSafeInteger(max) || max < 1 || max > 2_000_000_000) {
      return `"${part.trim()}" must allow from 1 to 2000000000 calls`;
    }
    const key = window === 'day' ? 'perDay' : 'perMonth';
    if (limits[key] !== undefined) return `sets the ${window} twice: ${ALLOWED}`;
    limits[key] = max;
  }
  return { perDay: limits.perDay, perMonth: limits.perMonth };
}

export const quotaSchema = z.string().transform((text, ctx) => {
  const parsed = parseQuota(text);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});

/** ENVDATA_SYNC_RESERVE: a number of calls per day, or a share of the daily quota. */
export type SyncReserve =
  | { readonly calls: number; readonly percent?: undefined }
  | { readonly percent: number; readonly calls?: undefined };

export const syncReserveSchema = z.string().transform((text, ctx): SyncReserve => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  const n = match ? Number(match[1]) : NaN;
  if (match?.[2] === '%' && n <= 100) return { percent: n };
  if (match && match[2] === '' && Number.isSafeInteger(n)) return { calls: n };
  ctx.addIssue({
    code: 'custom',
    message:
      'must be calls per day kept for the sync (a whole number such as 2000) or a share of the daily quota from 0% to below 100% (such as 10%)',
  });
  return z.NEVER;
});

/** Whether `name` is an IANA time zone this runtime knows (`UTC`, `Europe/Berlin`). */
export function isTimeZoneName(name: string): boolean {
  if (name.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
