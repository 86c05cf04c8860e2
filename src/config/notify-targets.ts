import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { NotifyTarget } from './config.js';

/**
 * ENVDATA_NOTIFY_URL: one or more http(s) URLs, separated by commas or white space, each listed
 * once (the same URL twice would post every alert twice: refused, as the parser writes URLs, so
 * `HTTPS://Host/x` and `https://host/x` are the same). A problem names the entry by its position,
 * never its text: the URL is a secret.
 */
export const notifyTargetsSchema = z.string().transform((value, ctx): NotifyTarget[] => {
  const urls = value.split(/[\s,]+/).filter((u) => u !== '');
  const targets: NotifyTarget[] = [];
  const seen = new Map<string, number>();
  urls.forEach((url, i) => {
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${i + 1} of ${urls.length} must be an http(s):// URL (such as a Slack incoming webhook)`,
      });
      return;
    }
    const href = new URL(url).href;
    const first = seen.get(href);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${i + 1} of ${urls.length} is the same URL as entry ${first + 1}: list each target once, or every alert is posted to it twice`,
      });
      return;
    }
    seen.set(href, i);
    targets.push({
      url,
      id: createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 16),
      label: `target ${i + 1} (${new URL(url).hostname})`,
    });
  });
  if (urls.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must hold at least one http(s):// URL when set' });
  }
  return targets;
});
