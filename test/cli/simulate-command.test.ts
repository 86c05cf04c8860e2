import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/service/service-client.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { childEnvironment } from '../harness/child-environment.js';

describe('envdata simulate', () => {
  it('serves the service on the given port until SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, [ENVDATA_BIN, 'simulate', '--port', '0'], {
      env: childEnvironment({ LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    const url = /listening at (http:\/\/[^ ]+)/.exec(first)?.[1];
    expect(url).toBeDefined();

    const client = createServiceClient({
      baseUrl: url!,
      apiKey: DEMO_API_KEY,
      connections: 1,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
    });
    try {
      const payload = await client.weatherHistory({
        lat: 52.52,
        lng: 13.405,
        from: '2020-07-13 00:00:00',
        to: '2020-07-14 00:00:00',
      });
      expect(payload.records).toHaveLength(24);
    } finally {
      await client.close();
    }

    const exited = once(child, 'exit') as Promise<[number | null]>;
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('refuses a bad port with exit 2', async () => {
    const child = spawn(process.execPath, [ENVDATA_BIN, 'simulate', '--port', '99999'], {
      env: childEnvironment(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/--port must be a port number/);
  });
});
