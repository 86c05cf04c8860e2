import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { npmRegistryMissing, probeNpmRegistry } from './npm-registry-probe.js';
import { freePort } from './private-services.js';

// Without a registry, the tarball install test used to wait out npm's retries on every package's
// metadata (about a minute each) until its 900 s timeout; it now asks first, in a few seconds.

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A loopback HTTP server answering with `handle`, and its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** npm with `registry` as its registry, nothing else of the developer's configuration. */
function npmWith(registry: string): { cwd: string; env: Record<string, string> } {
  return {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      npm_config_registry: registry,
      npm_config_update_notifier: 'false',
    },
  };
}

describe('probeNpmRegistry', () => {
  it("says a registry nobody listens at is unreachable, with npm's error code", async () => {
    const registry = `http://127.0.0.1:${await freePort()}/`;
    const probe = await probeNpmRegistry(npmWith(registry));
    expect(probe).toEqual({ registry, answers: false, reason: 'ECONNREFUSED' });
  }, 20_000);

  it('says a registry that never answers is unreachable once its time is up', async () => {
    const registry = await serve(() => undefined);
    const probe = await probeNpmRegistry(npmWith(registry), 5_000);
    expect(probe.answers).toBe(false);
    expect(probe.registry).toBe(registry);
  }, 20_000);

  it('says a registry that answers npm ping answers', async () => {
    const registry = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
    const probe = await probeNpmRegistry(npmWith(registry));
    expect(probe).toEqual({ registry, answers: true });
  }, 20_000);
});

describe('npmRegistryMissing', () => {
  it('says why outside CI, for the test to skip with', async () => {
    const registry = `http://127.0.0.1:${await freePort()}/`;
    expect(await npmRegistryMissing(npmWith(registry), false)).toBe(
      `${registry} does not answer (ECONNREFUSED)`,
    );
  }, 20_000);

  it('fails at once under CI=true, where the registry is part of the machine', async () => {
    const registry = `http://127.0.0.1:${await freePort()}/`;
    await expect(npmRegistryMissing(npmWith(registry), true)).rejects.toThrow(
      `under CI=true the npm registry is required: ${registry} does not answer (ECONNREFUSED)`,
    );
  }, 20_000);
});
