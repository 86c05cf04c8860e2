import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { serveConsole, type ServedConsole } from './serve-console.js';

// The console's `Host` check over real HTTP: what a DNS-rebinding page's requests look like (its
// own name in `Host`, the console's address underneath).
const fx = useBackfillFixture();
const TOKEN = 'host-test-token-0123456789';
let served: ServedConsole;

beforeAll(async () => {
  served = await serveConsole(fx, { token: TOKEN });
});

afterAll(() => served?.stop());

/** GET `path` of `console` with `host` as its `Host` header (and more headers). */
function get(
  console: ServedConsole,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { port } = new URL(console.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { host, ...headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (part: string) => (body += part));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const CONSOLE_PATHS = [
  '/',
  '/api/runs',
  '/api/session',
  '/queues',
  '/login',
  '/assets/console.css',
];

describe('a console bound to loopback', () => {
  it('refuses 421 every console route asked by another host’s name, saying what to set', async () => {
    const port = new URL(served.url).port;
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `192.168.1.20:${port}`,
      `[::2]:${port}`,
      `evil.example@127.0.0.1:${port}`,
      `127.0.0.1:${port}, evil.example`,
    ]) {
      for (const path of CONSOLE_PATHS) {
        const answer = await get(served, path, host);
        expect(answer.status, `${host} ${path}`).toBe(421);
        expect(answer.body).toMatch(/^this console answers to localhost, 127\.0\.0\.1, \[::1\]/);
        expect(answer.body).toContain('ENVDATA_CONSOLE_HOSTS');
        expect(answer.body).not.toContain('Berlin');
      }
    }
    // The token does not open it either: the name is wrong, whoever asks.
    const bearer = await get(served, '/api/runs', `evil.example:${port}`, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(bearer.status).toBe(421);
  });

  it('answers loopback names with any port, and the probes and metrics by any name', async () => {
    const port = new URL(served.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `127.1.2.3:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `console.localhost:${port}`,
      `[::1]:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
    ]) {
      const answer = await get(served, '/api/runs', host);
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body)).toHaveProperty('runs');
    }
    // Prometheus and healthchecks ask by names of their own (`console:8080`).
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await get(served, path, 'console:8080')).status, path).toBe(200);
    }
  });

  it('answers the names of ENVDATA_CONSOLE_HOSTS too', async () => {
    const proxied = await serveConsole(fx, {
      env: { ENVDATA_CONSOLE_HOSTS: 'Console.Example.test, 192.0.2.7' },
    });
    try {
      expect((await get(proxied, '/api/runs', 'console.example.test')).status).toBe(200);
      expect((await get(proxied, '/api/runs', 'console.example.test:443')).status).toBe(200);
      expect((await get(proxied, '/api/runs', '192.0.2.7:8080')).status).toBe(200);
      expect((await get(proxied, '/api/runs', 'localhost')).status).toBe(200);
      const other = await get(proxied, '/api/runs', 'evil.example');
      expect(other.status).toBe(421);
      expect(other.body).toMatch(
        /^this console answers to localhost, 127\.0\.0\.1, \[::1\], console\.example\.test, 192\.0\.2\.7 only, and the request names Host "evil\.example"/,
      );
    } finally {
      await proxied.stop();
    }
  });
});

describe('a console bound beyond loopback', () => {
  it('answers any Host (the token guards it), unless ENVDATA_CONSOLE_HOSTS limits it', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const open = await serveConsole(fx, { host: '0.0.0.0', token: TOKEN });
    try {
      expect((await get(open, '/api/runs', 'envdata-console:8080', auth)).status).toBe(200);
      expect((await get(open, '/api/runs', 'envdata-console:8080')).status).toBe(401);
    } finally {
      await open.stop();
    }
    const limited = await serveConsole(fx, {
      host: '0.0.0.0',
      token: TOKEN,
      env: { ENVDATA_CONSOLE_HOSTS: 'console.example.test' },
    });
    try {
      expect((await get(limited, '/api/runs', 'console.example.test', auth)).status).toBe(200);
      expect((await get(limited, '/api/runs', 'localhost:8080', auth)).status).toBe(200);
      expect((await get(limited, '/api/runs', 'envdata-console:8080', auth)).status).toBe(421);
      expect((await get(limited, '/metrics', 'envdata-console:8080')).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('ENVDATA_CONSOLE_HOSTS', () => {
  it('refuses what is not a list of host names (exit 2), naming the entry and the form', async () => {
    for (const value of [
      'https://console.example.test',
      'console.example.test:8080',
      'a,,b',
      '*',
    ]) {
      const bad = await runCliInProcess(
        ['serve', '--port', '0'],
        fx.cliEnv({ ENVDATA_CONSOLE_HOSTS: value }),
      );
      expect(bad.code, value).toBe(2);
      expect(bad.stderr).toMatch(/ENVDATA_CONSOLE_HOSTS \(got .*\): .* is not a host name/);
      expect(bad.stderr).toContain('e.g. console.example.com,192.0.2.7');
    }
  });
});
