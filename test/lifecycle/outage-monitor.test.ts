import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutageMonitor } from '../../src/lifecycle/outage-monitor.js';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { captureLogger } from '../harness/capture-logger.js';
import { startPrivateRedis, type PrivateRedis } from '../harness/private-services.js';
import { withoutRedis } from '../harness/test-environment.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.remove();
});

function monitorOf(url: string) {
  const captured = captureLogger();
  const monitor = new OutageMonitor({
    logger: captured.logger,
    probes: [{ name: 'Redis', check: () => assertRedisAnswers(url, 500) }],
    minDelayMs: 20,
    maxDelayMs: 200,
  });
  const states: string[] = [];
  const next = (state: 'down' | 'up') =>
    new Promise<void>((resolve) => {
      const off = monitor.subscribe((s) => {
        if (s !== state) return;
        off();
        resolve();
      });
    });
  monitor.subscribe((s) => states.push(s));
  const messages = () =>
    captured.lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 30)
      .map((l) => l.msg);
  return { monitor, states, next, messages };
}

const lostConnection = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

// A Redis of this file's own (redis-server): where none runs, none is installed either.
describe.skipIf(withoutRedis())('OutageMonitor', () => {
  it('ignores errors that are not an outage', () => {
    const { monitor, messages } = monitorOf(redis.url);
    expect(monitor.report(new Error('a bug'))).toBe(false);
    expect(monitor.ongoing).toBe(false);
    expect(messages()).toEqual([]);
    monitor.close();
  });

  it('says once what is down, however often it is reported, and once when it is back', async () => {
    const { monitor, states, next, messages } = monitorOf(redis.url);
    await redis.stop();
    const down = next('down');
    for (let i = 0; i < 50; i += 1) expect(monitor.report(lostConnection())).toBe(true);
    await down;
    expect(monitor.ongoing).toBe(true);
    let available = false;
    const waiting = monitor.whenAvailable().then(() => {
      available = true;
    });
    for (let i = 0; i < 50; i += 1) monitor.report(lostConnection());
    expect(available).toBe(false);

    const up = next('up');
    await redis.start();
    await up;
    await waiting;
    expect(monitor.ongoing).toBe(false);
    expect(states).toEqual(['down', 'up']);
    const lines = messages();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^Redis is unavailable \\(REDIS_URL ${redis.url} does not answer: start Redis .*\\); retrying with backoff until it answers$`,
      ),
    );
    expect(lines[1]).toMatch(/^Redis answers again after \d+ s; resuming$/);
    monitor.close();
  });

  it('lets a wait end at once when the process stops during an outage', async () => {
    const { monitor, next } = monitorOf('redis://127.0.0.1:1');
    const down = next('down');
    monitor.report(lostConnection());
    await down;
    const stop = new AbortController();
    const waiting = monitor.whenAvailable(stop.signal);
    stop.abort();
    await waiting;
    const closing = monitor.whenAvailable();
    monitor.close();
    await closing;
    expect(monitor.report(lostConnection())).toBe(true);
  });
});
