import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OutageMonitor } from '../../src/lifecycle/outage-monitor.js';
import { PollLoop } from '../../src/notify/poll-loop.js';
import { captureLogger, type CapturedLogger } from '../harness/capture-logger.js';

// The loop of the alerts' and the lineage dispatchers, on fake timers: when the next round
// runs, what a failed round logs, and that `stop` waits for the round under way.

const POLL_MS = 1_000;
const OUTAGE = new Error('connect ECONNREFUSED 127.0.0.1:5432');

let log: CapturedLogger;
let reported: unknown[];

/** A loop whose rounds answer (or throw) `answers` in turn, then `false`. */
function loopOf(answers: (boolean | Error)[]) {
  const calls = { n: 0 };
  const loop = new PollLoop({
    round: () => {
      const answer = answers[calls.n++] ?? false;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    pollMs: POLL_MS,
    app: {
      outages: {
        report: (error: unknown) => (reported.push(error), error === OUTAGE),
      } as unknown as OutageMonitor,
    },
    log: log.logger,
    failure: 'could not deliver things; trying again',
  });
  return { loop, calls };
}

beforeEach(() => {
  vi.useFakeTimers();
  log = captureLogger();
  reported = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('PollLoop', () => {
  it('runs the next round at once after a full one, pollMs after one that was not', async () => {
    const { loop, calls } = loopOf([true, true, false, false]);
    loop.schedule(0);
    // A timer of 0 fires a millisecond on, as Node's does.
    await vi.advanceTimersByTimeAsync(10);
    expect(calls.n).toBe(3);
    await vi.advanceTimersByTimeAsync(POLL_MS - 20);
    expect(calls.n).toBe(3);
    await vi.advanceTimersByTimeAsync(20);
    expect(calls.n).toBe(4);
    await loop.stop(1_000);
  });

  it('a failed round: told to the outage monitor, logged unless an outage, tried pollMs later', async () => {
    const bug = new Error('column "x" does not exist');
    const { loop, calls } = loopOf([bug, OUTAGE, false]);
    loop.schedule(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.n).toBe(1);
    expect(reported).toEqual([bug]);
    const warned = log.lines.map(
      (l) => JSON.parse(l) as { msg: string; err?: { message: string } },
    );
    expect(warned).toMatchObject([
      { msg: 'could not deliver things; trying again', err: { message: bug.message } },
    ]);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(calls.n).toBe(2);
    expect(reported).toEqual([bug, OUTAGE]);
    expect(log.lines).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(calls.n).toBe(3);
    await loop.stop(1_000);
  });

  it('wake runs a round now, but not while one runs nor once stopped', async () => {
    let finish!: (full: boolean) => void;
    let calls = 0;
    const loop = new PollLoop({
      round: () => {
        calls++;
        return new Promise<boolean>((resolve) => (finish = resolve));
      },
      pollMs: POLL_MS,
      app: { outages: { report: () => false } as unknown as OutageMonitor },
      log: log.logger,
      failure: 'could not deliver things; trying again',
    });
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    // `stop` waits for the round under way, and none follows it.
    let done = false;
    const stopped = loop.stop(60_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    finish(true);
    await stopped;
    loop.wake();
    await vi.advanceTimersByTimeAsync(POLL_MS * 10);
    expect(calls).toBe(1);
  });
});
