import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlertReceiver, type AlertReceiver } from '../harness/alert-receiver.js';
import { runEnvdata } from '../harness/run-envdata.js';

const SECRET = 'T123/B456/notify-secret';
let live: AlertReceiver;
let dead: AlertReceiver;

beforeAll(async () => {
  live = await startAlertReceiver(`hook/${SECRET}`);
  dead = await startAlertReceiver('hook/dead');
  await dead.down();
});

afterAll(async () => {
  await live?.close();
});

describe('envdata notify test', () => {
  it('posts one test alert to every target, prints each answer and exits 0 when all acknowledge', async () => {
    const result = await runEnvdata(['notify', 'test'], { ENVDATA_NOTIFY_URL: live.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('target 1 (127.0.0.1): HTTP 200 (delivered)');
    expect(live.received).toHaveLength(1);
    // Slack's incoming-webhook body: one human line.
    expect(Object.keys(live.received[0]!.body)).toEqual(['text']);
    expect(live.received[0]!.body.text).toMatch(
      /^envdata: test notification from .+ nothing to do \(at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/,
    );
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('exits 1 when a target does not acknowledge, naming it by its host only', async () => {
    live.setMode({ kind: 'status', status: 500 });
    const result = await runEnvdata(['notify', 'test'], {
      ENVDATA_NOTIFY_URL: `${live.url} ${dead.url}`,
      ENVDATA_NOTIFY_FORMAT: 'json',
    });
    live.setMode({ kind: 'ok' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('target 1 (127.0.0.1): HTTP 500 (FAILED)');
    expect(result.stdout).toContain('target 2 (127.0.0.1): ECONNREFUSED (FAILED)');
    expect(result.stderr).toContain('2 of 2 target(s) did not acknowledge');
    expect(live.received.at(-1)!.body).toMatchObject({ kind: 'notification', event: 'test' });
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('without ENVDATA_NOTIFY_URL, exits 2 saying what to set', async () => {
    const result = await runEnvdata(['notify', 'test']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ENVDATA_NOTIFY_URL is not set');
  });
});

describe('bad alert settings', () => {
  it('a URL that is not http(s): exit 2 at start, naming the variable, never the URL', async () => {
    const result = await runEnvdata(['worker'], {
      ENVDATA_API_KEY: 'k-123456',
      ENVDATA_NOTIFY_URL: `https://hooks.example/ok, ftp://hooks.example/${SECRET}`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ENVDATA_NOTIFY_URL: entry 2 of 2 must be an http(s):// URL');
    expect(result.stderr).not.toContain(SECRET);
  });

  it('the same URL listed twice: exit 2 at start, naming the entries, never the URL', async () => {
    const result = await runEnvdata(['worker'], {
      ENVDATA_API_KEY: 'k-123456',
      ENVDATA_NOTIFY_URL: `https://hooks.example/${SECRET}, HTTPS://HOOKS.example/${SECRET}`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'ENVDATA_NOTIFY_URL: entry 2 of 2 is the same URL as entry 1: list each target once',
    );
    expect(result.stderr).not.toContain(SECRET);
  });

  it('an unknown format: exit 2 at start, naming the variable and the formats', async () => {
    const result = await runEnvdata(['scheduler'], { ENVDATA_NOTIFY_FORMAT: 'xml' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'ENVDATA_NOTIFY_FORMAT (got "xml"): must be one of slack, json',
    );
  });
});
