import type { Uses } from '../runtime/app-resources.js';
import { sendJson, type HttpRoute } from '../runtime/http-server.js';
import { collectReadiness } from '../status/collect-readiness.js';

/**
 * `GET /readyz`: 200 when Postgres and the queue answer and the migrations are current, 503
 * otherwise; the JSON body names each check and what failed. Open to all, like `/healthz`: it
 * tells nothing beyond whether the process can work.
 */
export function readinessRoute(app: Uses<'config' | 'db' | 'queues'>): HttpRoute {
  return {
    method: 'GET',
    path: '/readyz',
    handler: async (_request, response) => {
      const readiness = await collectReadiness(app);
      sendJson(response, readiness.ready ? 200 : 503, readiness);
    },
  };
}
