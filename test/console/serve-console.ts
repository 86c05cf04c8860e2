import type { App } from '../../src/app.js';
import { serveRoutes } from '../../src/cli/serve-routes.js';
import type { Environment } from '../../src/config/load-config.js';
import type { BackfillFixture } from '../harness/backfill-fixture.js';

export interface ServedConsole {
  readonly app: App;
  /** `http://127.0.0.1:PORT`, whatever interface it binds. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * What `envdata serve` starts, in this process: an app of `fx` with the routes of
 * `serveRoutes`, on `host` and a free port.
 */
export async function serveConsole(
  fx: BackfillFixture,
  options: { host?: string; token?: string; env?: Environment } = {},
): Promise<ServedConsole> {
  const host = options.host ?? '127.0.0.1';
  const app = fx.newApp({
    ...(options.token !== undefined && { ENVDATA_CONSOLE_TOKEN: options.token }),
    ...options.env,
  });
  await app.start({ http: { host, port: 0, routes: serveRoutes(app, { host, port: 0 }) } });
  const port = new URL(app.http!.url).port;
  return { app, url: `http://127.0.0.1:${port}`, stop: () => app.stop() };
}
