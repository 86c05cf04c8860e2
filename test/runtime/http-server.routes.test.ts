import { afterEach, describe, expect, it } from 'vitest';
import { HttpServer, sendJson, sendText } from '../../src/runtime/http-server.js';
import { createLogger } from '../../src/logging/create-logger.js';

const servers: HttpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(0);
});

async function serve(configure: (server: HttpServer) => void): Promise<string> {
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent', format: 'json', color: false }),
  });
  configure(server);
  servers.push(server);
  await server.start();
  return server.url;
}

describe('HttpServer routes', () => {
  it('matches exact paths first, then parameters, then mounts, in the order added', async () => {
    const url = await serve((s) =>
      s
        .route('GET', '/api/runs/:id', (_q, r, p) => sendJson(r, 200, { run: p.id }))
        .route('POST', '/api/runs/:id/retry', (_q, r, p) => sendJson(r, 200, { retry: p.id }))
        .route('GET', '/api/runs/latest', (_q, r) => sendText(r, 200, 'exact\n'))
        .route('GET', '/queues/*', (_q, r, p) => sendText(r, 200, `mounted ${p['*']}\n`)),
    );
    expect(await (await fetch(`${url}/api/runs/12?x=1`)).json()).toEqual({ run: '12' });
    expect(await (await fetch(`${url}/api/runs/a%20b`)).json()).toEqual({ run: 'a b' });
    expect(await (await fetch(`${url}/api/runs/latest`)).text()).toBe('exact\n');
    const retry = await fetch(`${url}/api/runs/7/retry`, { method: 'POST' });
    expect(await retry.json()).toEqual({ retry: '7' });
    expect(await (await fetch(`${url}/queues`)).text()).toBe('mounted /\n');
    expect(await (await fetch(`${url}/queues/api/queues`)).text()).toBe('mounted /api/queues\n');
    // A parameter is one segment: no more, no less.
    expect((await fetch(`${url}/api/runs`)).status).toBe(404);
    expect((await fetch(`${url}/api/runs/1/2`)).status).toBe(404);
    expect((await fetch(`${url}/api/runs/%E0%A4%A`)).status).toBe(404);
    expect((await fetch(`${url}/queuesx`)).status).toBe(404);
    const wrong = await fetch(`${url}/api/runs/7/retry`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});
