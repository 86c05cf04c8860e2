import type { EnvdataMetrics } from '../metrics/envdata-metrics.js';
import type { HttpRoute } from './http-server.js';

/**
 * `GET /metrics`: the process's metrics in Prometheus's text format (`registry.contentType`).
 * A scrape-time source that is down leaves its gauges stale, never fails the answer.
 *
 * @example
 * ```ts
 * await app.start({ http: { host: '127.0.0.1', port: 9464, routes: [metricsRoute(app)] } });
 * ```
 */
export function metricsRoute(app: { readonly metrics: EnvdataMetrics }): HttpRoute {
  return {
    method: 'GET',
    path: '/metrics',
    handler: async (_request, response) => {
      const { registry } = app.metrics;
      const body = await registry.metrics();
      response.writeHead(200, {
        'content-type': registry.contentType,
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    },
  };
}
