import type { App } from '../app.js';
import type { HttpRoute } from '../runtime/http-server.js';
import { consoleRoutes } from '../console/console-routes.js';
import { readinessRoute } from '../console/readiness-route.js';
import { metricsRoute } from '../runtime/metrics-route.js';
import type { ServeOptions } from './serve-options.js';

/**
 * The routes of `envdata serve`, besides `/healthz` (which the app always adds): readiness, the
 * Prometheus metrics, then the operations console. This list is the one place to add more.
 */
export function serveRoutes(app: App, options: ServeOptions): HttpRoute[] {
  return [
    readinessRoute(app),
    // Open like /healthz and /readyz, so that Prometheus scrapes it without the console's token:
    // counts and gauges only, nothing per location, no secret.
    metricsRoute(app),
    ...consoleRoutes(app, {
      host: options.host,
      token: app.config.console.token,
      hosts: app.config.console.hosts,
    }),
  ];
}
