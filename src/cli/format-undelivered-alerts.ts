/** The line about alerts waiting in the outbox, or `undefined` when there is nothing to say. */
export function formatUndeliveredAlerts(
  undelivered: number | null,
  targets: number,
): string | undefined {
  if (undelivered === null || (undelivered === 0 && targets === 0)) return undefined;
  if (targets === 0) {
    return `alerts: ${undelivered} undelivered event(s) in the outbox: set ENVDATA_NOTIFY_URL to receive them (docs/alerts.md)`;
  }
  return undelivered === 0
    ? `alerts: all delivered to ${targets} target(s)`
    : `alerts: ${undelivered} undelivered event(s) to ${targets} target(s); a worker, scheduler or serve delivers them (\`envdata notify test\` checks the targets)`;
}
