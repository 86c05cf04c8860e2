import { describe, expect, it } from 'vitest';
import { formatUndeliveredAlerts } from '../../src/cli/format-undelivered-alerts.js';

describe('the alerts line of `envdata status`', () => {
  it('says nothing without targets or events, or when the ledger was not read', () => {
    expect(formatUndeliveredAlerts(0, 0)).toBeUndefined();
    expect(formatUndeliveredAlerts(null, 2)).toBeUndefined();
  });

  it('counts undelivered events, and says what to set when no target is', () => {
    expect(formatUndeliveredAlerts(3, 0)).toBe(
      'alerts: 3 undelivered event(s) in the outbox: set ENVDATA_NOTIFY_URL to receive them (docs/alerts.md)',
    );
    expect(formatUndeliveredAlerts(2, 1)).toMatch(
      /^alerts: 2 undelivered event\(s\) to 1 target\(s\); .*`envdata notify test` checks the targets/,
    );
    expect(formatUndeliveredAlerts(0, 2)).toBe('alerts: all delivered to 2 target(s)');
  });
});
