import { connect } from 'node:net';
import type { Reporter } from 'vitest/reporters';
import { dockerEngineAnswers } from './docker-engine.js';

// The harness is the one place in the tests that reads the environment.
const env = process.env;
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';
const REDIS_HOW_TO_START =
  'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no';

/** Whether the `redis` project runs, and if not, the line that says why. */
export interface RedisLeg {
  readonly runs: boolean;
  readonly url: string;
  readonly why?: string;
}

/**
 * The `redis` project runs when a Redis answers PING at TEST_REDIS_URL (default local), when a
 * Docker engine answers (the global setup then starts one), and always under CI=true, where a
 * missing Redis must fail the run rather than shrink it.
 */
export async function redisLegRuns(): Promise<RedisLeg> {
  const url = env.TEST_REDIS_URL ?? DEFAULT_REDIS;
  if (env.CI === 'true' || (await answersPing(url)) || dockerEngineAnswers()) {
    return { runs: true, url };
  }
  return {
    runs: false,
    url,
    why: `redis backend: not run — no Redis at ${url}; start it with \`${REDIS_HOW_TO_START}\` (or set TEST_REDIS_URL), and run again`,
  };
}

/** One closing line when the `redis` project was left out. */
export function redisLegReporter(leg: RedisLeg): Reporter {
  return {
    onTestRunEnd() {
      if (!leg.runs) process.stdout.write(`\n${leg.why}\n`);
    },
  };
}

/** A PING answered with PONG within a second (no client library: this runs in the config). */
function answersPing(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    // A Redis that wants a password answers too: the global setup then reports the URL.
    socket.on('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}
