import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSimulatorEnvironment } from '../../src/cli/simulator-environment.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { TEST_NOW } from './simulator-http.js';
import { childEnvironment } from '../harness/child-environment.js';

const TOKEN = 'admin-token-0123456789abcdef';

/**
 * An address beyond loopback to listen on and the one to connect to: this machine's first
 * non-internal IPv4 address, else 0.0.0.0 reached through 127.0.0.1.
 */
function outsideAddress(): { listen: string; connect: string } {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  return address === undefined
    ? { listen: '0.0.0.0', connect: '127.0.0.1' }
    : { listen: address, connect: address };
}

async function call(
  url: string,
  options: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const res = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    body: options.body,
  });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

async function startError(options: Parameters<typeof startSimulator>[0]): Promise<unknown> {
  try {
    const sim = await startSimulator(options);
    await sim.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a simulator listening beyond loopback', () => {
  const address = outsideAddress();
  let sim: RunningSimulator;
  let base: string;

  beforeAll(async () => {
    sim = await startSimulator({ host: address.listen, adminToken: TOKEN, now: TEST_NOW });
    base = `http://${address.connect}:${sim.port}`;
  });
  afterAll(async () => {
    await sim.close();
  });

  it('answers 401 on every admin route without the token, and changes nothing', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-admin-token': 'wrong-token-0123456789' },
      { authorization: 'Bearer nope' },
    ];
    for (const headers of attempts) {
      const stats = await call(`${base}/__admin/stats`, { headers });
      expect(stats.status).toBe(401);
      expect(stats.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(stats.text).toMatch(/needs the simulator's admin token \(ENVDATA_SIM_ADMIN_TOKEN\)/);
    }
    const faults = await call(`${base}/__admin/faults`, {
      method: 'POST',
      body: 'all:error=503@100%',
    });
    expect(faults.status).toBe(401);
    expect(sim.faults().rules).toEqual([]);
  });

  it('serves the admin routes with the token, as x-admin-token or a bearer token', async () => {
    const byHeader = await call(`${base}/__admin/stats`, { headers: { 'x-admin-token': TOKEN } });
    expect(byHeader.status).toBe(200);
    expect(JSON.parse(byHeader.text)).toHaveProperty('total');
    const byBearer = await call(`${base}/__admin/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: 'history:error=503x1',
    });
    expect(byBearer.status).toBe(200);
    expect(sim.faults().scripts).toHaveLength(1);
    sim.clearFaults();
  });

  it('still serves the service endpoints with just an API key', async () => {
    const latest = await call(`${base}/weather/latest/by-lat-lng?lat=52.52&lng=13.405`, {
      headers: { 'x-api-key': DEMO_API_KEY },
    });
    expect(latest.status).toBe(200);
  });
});

describe('starting a simulator beyond loopback', () => {
  it('is refused without a token while the admin endpoint is on, saying what to do', async () => {
    const error = await startError({ host: '0.0.0.0' });
    expect(isEnvdataError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(
      /would listen on 0\.0\.0\.0, beyond loopback, with its admin endpoint .* open to anyone .*Set ENVDATA_SIM_ADMIN_TOKEN .*ENVDATA_SIM_ADMIN=off/,
    );
  });

  it('is refused with a short token', async () => {
    const error = await startError({ host: '0.0.0.0', adminToken: 'short' });
    expect((error as Error).message).toMatch(/at least 16 characters/);
  });

  it('is allowed with the admin endpoint off, which then does not answer', async () => {
    const sim = await startSimulator({ host: '0.0.0.0', admin: false });
    try {
      expect((await call(`http://127.0.0.1:${sim.port}/__admin/stats`)).status).toBe(404);
    } finally {
      await sim.close();
    }
  });

  it('on loopback without a token, the admin endpoint stays open', async () => {
    const sim = await startSimulator();
    try {
      expect((await call(`${sim.url}/__admin/stats`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('envdata simulate beyond loopback', () => {
  const simulate = (env: Record<string, string>) =>
    spawn(process.execPath, [ENVDATA_BIN, 'simulate', '--port', '0'], {
      env: childEnvironment({ LOG_LEVEL: 'warn', ENVDATA_SIM_HOST: '0.0.0.0', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('exits 2 without ENVDATA_SIM_ADMIN_TOKEN, with a clear message', async () => {
    const child = simulate({});
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/Set ENVDATA_SIM_ADMIN_TOKEN/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('starts with it, and says the admin endpoint needs it', async () => {
    const child = simulate({ ENVDATA_SIM_ADMIN_TOKEN: TOKEN });
    const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    expect(first).toMatch(
      /listening at http:\/\/127\.0\.0\.1:\d+ .*\/__admin\/stats \(token required\)/,
    );
    const url = /listening at (http:\/\/\S+)/.exec(first)?.[1];
    expect((await call(`${url}/__admin/stats`)).status).toBe(401);
    const stats = await call(`${url}/__admin/stats`, { headers: { 'x-admin-token': TOKEN } });
    expect(stats.status).toBe(200);
    const exited = once(child, 'exit') as Promise<[number | null]>;
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  });

  it('never shows the token in a configuration error', () => {
    let message = '';
    try {
      parseSimulatorEnvironment({ ENVDATA_SIM_ADMIN_TOKEN: TOKEN, ENVDATA_SIM_PORT: 'x' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('ENVDATA_SIM_PORT');
    expect(message).not.toContain(TOKEN);
  });
});
