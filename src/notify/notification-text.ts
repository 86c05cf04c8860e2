import type { NotificationEvent } from '../ledger/record-notification.js';

const str = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : '';

/** `{ SERVER_ERROR: 3, TIMEOUT: 1 }` → `3 SERVER_ERROR, 1 TIMEOUT`. */
function countsByCode(counts: unknown): string {
  if (!counts || typeof counts !== 'object') return '';
  return Object.entries(counts as Record<string, unknown>)
    .map(([code, n]) => `${str(n)} ${code}`)
    .join(', ');
}

/**
 * The one line a person reads (Slack's `text`, the JSON document's `text`): what happened, and
 * what to do about it. Built from the event's details, never from a secret.
 */
export function notificationText(
  event: NotificationEvent,
  details: Readonly<Record<string, unknown>>,
): string {
  const d = details;
  const action = str(d.action);
  const todo = action === '' ? '' : ` — to do: ${action}`;
  switch (event) {
    case 'run-ended': {
      const parts = [
        Number(d.failedChunks) > 0
          ? `${str(d.failedChunks)} chunk(s) failed (${countsByCode(d.failedByCode)})`
          : '',
        Number(d.quarantinedHours) > 0 ? `${str(d.quarantinedHours)} hour(s) quarantined` : '',
        typeof d.setAside === 'string' ? d.setAside : '',
        Array.isArray(d.blockedDatasets) && d.blockedDatasets.length > 0
          ? `datasets refused: ${d.blockedDatasets.join(', ')}`
          : '',
        typeof d.errorCode === 'string' && d.errorCode !== 'FORBIDDEN' ? d.errorCode : '',
      ].filter((p) => p !== '');
      return `envdata: ${str(d.kind)} run ${str(d.runId)} ended ${str(d.status)}: ${parts.join('; ') || 'see its status'}${todo}`;
    }
    case 'key-refused':
      return `envdata: the service refused the API key (401); run ${str(d.runId)} stopped and no run fetches until the key is fixed — to do: check ENVDATA_API_KEY, then envdata resume ${str(d.runId)}`;
    case 'product-refused':
      return `envdata: the service refused ${str(d.dataset)} to the API key (403) in run ${str(d.runId)}; the other datasets go on${todo}`;
    case 'wrong-address':
      return `envdata: run ${str(d.runId)} stopped: answers look like a wrong address (WRONG_ADDRESS) — to do: check ENVDATA_BASE_URL, then envdata resume ${str(d.runId)}`;
    case 'run-stopped':
      return `envdata: run ${str(d.runId)} stopped (${str(d.code)}): ${str(d.message)}${todo}`;
    case 'quota-reached':
      return d.refusedByService === true
        ? `envdata: the service refused: quota exceeded; envdata had counted ${str(d.counted)} of ${str(d.limit)} calls (${str(d.reason)}); runs wait until ${str(d.until)}${todo}`
        : `envdata: ${str(d.reason)} reached; runs wait until ${str(d.until)}${todo}`;
    case 'quota-freed':
      return `envdata: ${str(d.reason)} reset at ${str(d.until)}; runs go on by themselves`;
    case 'run-quota-bound':
      return `envdata: run ${str(d.runId)} is quota-bound (${str(d.reason)}): ${str(d.callsLeft)} call(s) left, expected to finish ~${str(d.expectedFinish)}; it goes on by itself at each reset — nothing to do (${str(d.faster)})`;
    case 'freshness-breached':
      return `envdata: ${str(d.stale)} location(s) stale for ${str(d.dataset)} (older than ${str(d.maxLagHours)} h, worst ${str(d.worstLagHours)} h)${todo}`;
    case 'freshness-recovered':
      return `envdata: ${str(d.dataset)} is fresh again at every location (within ${str(d.maxLagHours)} h)`;
    case 'no-worker':
      return `envdata: ${str(d.runs)} run(s) have work waiting and no worker has been connected for ${str(d.minutes)} min${todo}`;
    case 'sync-missed':
      return `envdata: the nightly sync due at ${str(d.scheduledAt)} did not start within an hour${todo}`;
    case 'upstream-changed': {
      const changes = Array.isArray(d.changes) ? d.changes.map(str).join('; ') : '';
      return `envdata: the service's ${str(d.dataset)} ${str(d.source)} answers changed shape (${str(d.shape)}): ${changes || 'see envdata upstream'}; ${str(d.held)}${todo}`;
    }
    case 'bi-role-lifted': {
      const lifted = Array.isArray(d.lifted) ? d.lifted.map(str).join('; ') : '';
      return d.resettable === true
        ? `envdata: BI role ${str(d.role)} had lifted its own limits (${lifted}); envdata put them back — a session already open keeps what it set, and cannot hold up envdata's writes`
        : `envdata: BI role ${str(d.role)} lifted its own limits (${lifted}) and this role may not put them back${todo}`;
    }
    case 'run-revised': {
      const datasets = Array.isArray(d.datasets)
        ? (d.datasets as Record<string, unknown>[])
            .map(
              (x) =>
                `${str(x.dataset)} ${str(x.revisedHours)} of ${str(x.rereadHours)} re-read hour(s) (${str(x.percent)} %)`,
            )
            .join(', ')
        : '';
      return `envdata: ${str(d.kind)} run ${str(d.runId)} revised ${datasets}: the service changed values it had sent before (more than ${str(d.limitPercent)} %, ENVDATA_ALERT_REVISED_SHARE)${todo}`;
    }
    case 'test':
      return `envdata: test notification from ${str(d.host)} — alerts reach this channel; nothing to do`;
  }
}
