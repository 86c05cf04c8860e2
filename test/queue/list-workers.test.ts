import { describe, expect, it } from 'vitest';
import { mergeWorkers } from '../../src/queue/list-workers.js';

const now = new Date('2026-11-27T00:00:00Z');
const id = { host: 'a', pid: 10, concurrency: 8 };

describe('mergeWorkers', () => {
  it('joins a heartbeat to its connection: alive, busy, and the connection’s own idle and age', () => {
    const [w, ...rest] = mergeWorkers(
      [{ ...id, idleSeconds: 120, ageSeconds: 120 }],
      [{ ...id, id: 'a:10:8:x', busy: 8, beatAgeSeconds: 2, ageSeconds: 121 }],
      now,
    );
    expect(rest).toEqual([]);
    expect(w).toEqual({
      ...id,
      idleSeconds: 120,
      ageSeconds: 120,
      alive: true,
      lastHeartbeatAt: new Date('2026-11-26T23:59:58Z'),
      busy: 8,
      connected: true,
    });
  });

  it('keeps a heartbeat without connection (killed, not yet expired) and a connection without heartbeat', () => {
    const other = { host: 'b', pid: 20, concurrency: 2 };
    const workers = mergeWorkers(
      [{ ...other, idleSeconds: 5, ageSeconds: 600 }],
      [{ ...id, id: 'a:10:8:x', busy: 3, beatAgeSeconds: 4.4, ageSeconds: 300.7 }],
      now,
    );
    expect(workers).toEqual([
      {
        ...id,
        idleSeconds: 4,
        ageSeconds: 300,
        alive: true,
        lastHeartbeatAt: new Date('2026-11-26T23:59:55.600Z'),
        busy: 3,
        connected: false,
      },
      {
        ...other,
        idleSeconds: 5,
        ageSeconds: 600,
        alive: false,
        lastHeartbeatAt: null,
        busy: null,
        connected: true,
      },
    ]);
  });

  it('matches each connection to one heartbeat: two workers of one process are two', () => {
    const beat = { ...id, busy: 0, beatAgeSeconds: 1, ageSeconds: 9 };
    const workers = mergeWorkers(
      [
        { ...id, idleSeconds: 0, ageSeconds: 9 },
        { ...id, idleSeconds: 0, ageSeconds: 9 },
      ],
      [
        { ...beat, id: 'a:10:8:1' },
        { ...beat, id: 'a:10:8:2' },
      ],
      now,
    );
    expect(workers.map((w) => [w.alive, w.connected])).toEqual([
      [true, true],
      [true, true],
    ]);
  });
});
