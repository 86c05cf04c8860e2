import { z } from 'zod';

const ALLOWED = 'must be a share from 0 to 1 (0.05), a percentage (5%) or off';

/**
 * ENVDATA_ALERT_REVISED_SHARE: the share of the hours a run re-read it may revise before it
 * raises `run-revised`: `0.05`, `5%` or `off` (never; `undefined`).
 */
export const revisedShareSchema = z.string().transform((v, ctx): number | undefined => {
  const text = v.trim().toLowerCase();
  if (text === 'off') return undefined;
  const match = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(text);
  const share = match ? Number(match[1]) / (match[2] === '%' ? 100 : 1) : Number.NaN;
  if (!(share >= 0 && share <= 1)) {
    ctx.addIssue({ code: 'custom', message: ALLOWED });
    return z.NEVER;
  }
  return share;
});
