import { describe, expect, it } from 'vitest';
import { formatWorkers } from '../../src/cli/format-workers.js';
import type { ConnectedWorker } from '../../src/queue/list-workers.js';

const now = new Date('2026-11-27T00:00:00Z');
const worker = (over: Partial<ConnectedWorker>): ConnectedWorker => ({
  host: 'a',
  pid: 10,
  concurrency: 8,
  idleSeconds: 120,
  ageSeconds: 120,
  alive: true,
  lastHeartbeatAt: new Date('2026-11-26T23:59:58Z'),
  busy: 8,
  connected: true,
  ...over,
});

describe('formatWorkers', () => {
  it('shows a worker busy with every slot as alive by its heartbeat, not by its idle connection', () => {
    expect(formatWorkers([worker({})], now)).toEqual([
      'workers alive: 1 (busy with 8 of 8 job slots)',
      '  a pid 10, concurrency 8, busy 8, heartbeat 2 s ago, connected 2 min',
    ]);
  });

  it('says when a worker is connected without a heartbeat, and when one’s connection is gone', () => {
    const lines = formatWorkers(
      [
        worker({ pid: 11, busy: 1, connected: false, ageSeconds: 300 }),
        worker({ pid: 12, alive: false, lastHeartbeatAt: null, busy: null, idleSeconds: 30 }),
      ],
      now,
    );
    expect(lines).toEqual([
      'workers alive: 1 (busy with 1 of 8 job slots), 1 without heartbeat',
      '  a pid 11, concurrency 8, busy 1, heartbeat 2 s ago, its queue connection is closed (killed, or its host unreachable): gone once its heartbeat expires',
      '  a pid 12, concurrency 8, connected 2 min, no heartbeat (an envdata without heartbeats, or its event loop is stuck), connection last active 30 s ago',
    ]);
  });

  it('counts none alive when none is', () => {
    expect(formatWorkers([], now)).toEqual(['workers alive: 0']);
  });
});
