import { z } from 'zod';

/** One rate-limit rule: at most `max` calls per `durationMs`, shared by every worker. */
export interface RateLimitRule {
  readonly max: number;
  readonly durationMs: number;
  /** As written by the operator, for messages: `20/s`. */
  readonly label: string;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/** Shortest and longest window a rate may count calls over. */
const MIN_WINDOW_MS = 100;
const MAX_WINDOW_MS = 31 * 86_400_000;

/**
 * Parses `20/s`, `1200/min`, `50000/day` or a comma-separated list of them
 * (`20/s,50000/day`). `off` means no limit. Windows span 100 ms to 31 days.
 */
export function parseRateLimits(text: string): RateLimitRule[] | string {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'off' || trimmed === 'none') return [];
  const rules: RateLimitRule[] = [];
  for (const part of trimmed.split(',')) {
    const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/i.exec(part);
    const unit = match?.[3]?.toLowerCase();
    const unitMs = unit === undefined ? undefined : UNIT_MS[unit];
    if (!match || unitMs === undefined) {
      return `"${part.trim()}" is not a rate such as 20/s, 1200/min or 50000/day`;
    }
    const max = Number(match[1]);
    const multiplier = match[2] === '' ? 1 : Number(match[2]);
    if (max < 1 || multiplier < 1) return `"${part.trim()}" must allow at least one call`;
    const durationMs = unitMs * multiplier;
    if (!Number.isSafeInteger(max) || durationMs < MIN_WINDOW_MS || durationMs > MAX_WINDOW_MS) {
      return `"${part.trim()}" must count calls over a window from 100 ms to 31 days (20/s, 1200/min, 50000/day)`;
    }
    rules.push({ max, durationMs, label: part.trim() });
  }
  return rules;
}

export const rateLimitSchema = z.string().transform((text, ctx) => {
  const parsed = parseRateLimits(text);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});
