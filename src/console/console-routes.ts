import type { IncomingMessage } from 'node:http';
import { admissionStores } from '../admission/admission-stores.js';
import type { Uses } from '../runtime/app-resources.js';
import { sendJson, sendText, type HttpHandler, type HttpRoute } from '../runtime/http-server.js';
import { failedChunkGroups, type FailedChunkGroup } from '../ledger/failed-chunk-groups.js';
import { runExists } from '../ledger/reopen-runs.js';
import { readRunProgress, recentRunIds, type RunProgress } from '../ledger/run-progress.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { queuePauseMs } from '../admission/queue-pause.js';
import { resumeRuns, retryFailedChunks } from '../runs/resume-runs.js';
import { DATASETS, type Dataset } from '../types.js';
import { alertsBoard } from './alerts-board.js';
import { upstreamBoard } from './upstream-board.js';
import { AllowedHosts } from './allowed-hosts.js';
import { ConsoleAccess, TOKEN_COOKIE } from './console-access.js';
import { sendAsset, sendPage } from './console-assets.js';
import { coverageGrid, COVERAGE_STATES, type CoverageBucket } from './coverage-grid.js';
import { describeRunScope } from './describe-run-scope.js';
import { freshnessBoard } from './freshness-board.js';
import { runRows } from './run-rows.js';
import { loginPage } from './login-page.js';
import { queueBoardHandler, QUEUE_BOARD_PATH } from './queue-board.js';
import { readCallRate } from './read-call-rate.js';
import { readQuotaGauge } from './read-quota-gauge.js';
import { safeNext } from './safe-next.js';
import { readQueueHolds, withQueueWaiting, type QueueHolds } from '../status/run-waiting.js';

/** Runs the Runs page lists. */
const RUNS_SHOWN = 50;
/** Largest coverage page: every location of a 1,000-location installation at once. */
const MAX_PAGE_SIZE = 1_000;
/** Longest sign-in form body read. */
const MAX_FORM_BYTES = 4_096;

export interface ConsoleOptions {
  /** The interface `envdata serve` binds: beyond loopback, every read needs the token. */
  readonly host: string;
  /** ENVDATA_CONSOLE_TOKEN. */
  readonly token: string | undefined;
  /** ENVDATA_CONSOLE_HOSTS: names it answers to besides loopback ones (`AllowedHosts`). */
  readonly hosts?: readonly string[];
}

/** A request the console answers 400: a query parameter out of range, named. */
class BadRequest extends Error {}

/**
 * The operations console's routes: its page (`/`, `/assets/…`), the sign-in form, the JSON API
 * behind it (`/api/…`) and the queues board (`/queues`). Every one of them checks the `Host` it
 * is asked by (`AllowedHosts`: 421 for another site's name), then access (`ConsoleAccess`); throws
 * `CONFIG_INVALID` when `host` is beyond loopback and no token is set. `/healthz`, `/readyz` and
 * `/metrics` are not among them: Prometheus and healthchecks ask by names of their own (`console:8080`),
 * and they show counts only, no location, no secret.
 */
export function consoleRoutes(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  options: ConsoleOptions,
): HttpRoute[] {
  const access = new ConsoleAccess(options);
  const hosts = new AllowedHosts({ bind: options.host, names: options.hosts ?? [] });
  const log = app.logger.child({ component: 'console' });

  /** A read: the page or the API; refused 401 without the token when it is needed. */
  const read =
    (handler: HttpHandler, kind: 'page' | 'api'): HttpHandler =>
    async (request, response, params) => {
      if (!access.mayRead(request)) {
        return kind === 'api'
          ? sendJson(response, 401, { error: 'this console needs its token: sign in at /login' })
          : sendPage(response, 401, loginPage({ next: safeNext(request.url) }));
      }
      try {
        return await handler(request, response, params);
      } catch (error) {
        if (error instanceof BadRequest) return sendJson(response, 400, { error: error.message });
        throw error;
      }
    };

  /** An action: always the token, from the console's own origin. */
  const act =
    (handler: HttpHandler): HttpHandler =>
    async (request, response, params) => {
      const refusal = access.actionRefusal(request);
      if (refusal) return sendJson(response, refusal.status, { error: refusal.message });
      return handler(request, response, params);
    };

  const runIdOf = (params: Readonly<Record<string, string>>): number => {
    const id = Number(params.id);
    if (!Number.isSafeInteger(id) || id < 1) throw new BadRequest(`"${params.id}" is not a run id`);
    return id;
  };

  const board = queueBoardHandler(app);
  /** The ingest queue, opened on first use, for the pause of every worker in force. */
  let ingest: ReturnType<typeof app.queues.queue> | undefined;
  /** What the queue adds to the runs' holds: throttled, no worker connected (`queueWaiting`). */
  const queueHolds = async (): Promise<QueueHolds> => {
    ingest ??= app.queues.queue(QUEUE_NAMES.ingest);
    return readQueueHolds(ingest, () => app.queues.listWorkers(QUEUE_NAMES.ingest)).catch(() => ({
      pausedUntil: null,
      workers: undefined,
    }));
  };
  /** The progress of `runIds` (`readRunProgress`, as `envdata status` reads it) with the holds. */
  const progressOf = async (runIds: readonly number[], setAside = true): Promise<RunProgress[]> => {
    const runs = await readRunProgress(app.db, runIds, { setAside });
    const holds = await queueHolds();
    return runs.map((p) => withQueueWaiting(p, holds));
  };

  const routes: HttpRoute[] = [
    { method: 'GET', path: '/', handler: read((_q, r) => sendAsset(r, 'index.html'), 'page') },
    // The script, styles and uPlot are the package's own source, open to all: the sign-in form
    // needs the styles before the token is known.
    { method: 'GET', path: '/assets/:file', handler: (_q, r, p) => sendAsset(r, p.file ?? '') },
    {
      method: 'GET',
      path: '/login',
      handler: (request, response) =>
        sendPage(response, 200, loginPage({ next: safeNext(queryOf(request).get('next')) })),
    },
    {
      method: 'POST',
      path: '/login',
      handler: async (request, response) => {
        const body = await readBody(request, MAX_FORM_BYTES).catch(() => undefined);
        if (body === undefined) return sendJson(response, 413, { error: 'the form is too large' });
        const form = new URLSearchParams(body);
        const next = safeNext(form.get('next'));
        if (!access.actionsEnabled || !access.matches(form.get('token') ?? '')) {
          log.warn('console sign-in refused: wrong token');
          return sendPage(response, 401, loginPage({ next, failed: true }));
        }
        response.writeHead(303, {
          location: next,
          'set-cookie': `${TOKEN_COOKIE}=${encodeURIComponent(form.get('token')!)}; Path=/; HttpOnly; SameSite=Strict`,
        });
        response.end();
      },
    },
    {
      method: 'POST',
      path: '/logout',
      handler: (_request, response) => {
        response.writeHead(303, {
          location: '/',
          'set-cookie': `${TOKEN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`,
        });
        response.end();
      },
    },
    {
      method: 'GET',
      path: '/api/session',
      handler: read(
        (request, response) =>
          sendJson(response, 200, {
            readsNeedToken: access.readsNeedToken,
            actions: !access.actionsEnabled
              ? 'disabled'
              : access.carriesToken(request)
                ? 'enabled'
                : 'sign-in',
            queueBackend: app.config.queueBackend,
            states: COVERAGE_STATES,
            datasets: DATASETS,
          }),
        'api',
      ),
    },
    {
      method: 'GET',
      path: '/api/runs',
      handler: read(async (_q, response) => {
        const progress = await progressOf(await recentRunIds(app.db, RUNS_SHOWN), false);
        return sendJson(response, 200, { runs: await runRows(app.db, progress, app.config) });
      }, 'api'),
    },
    {
      method: 'GET',
      path: '/api/runs/:id',
      handler: read(async (_q, response, params) => {
        const runId = runIdOf(params);
        const [progress] = await progressOf([runId]);
        if (!progress) return sendJson(response, 404, { error: `there is no run ${runId}` });
        const [run] = await runRows(app.db, [progress], app.config);
        const failures = withTraceUrls(
          await failedChunkGroups(app.db, runId, 5),
          app.config.console.traceUrl,
        );
        const scope = await describeRunScope(app.db, app.config, runId, progress.calls);
        return sendJson(response, 200, { run, progress, failures, scope });
      }, 'api'),
    },
    {
      method: 'POST',
      path: '/api/runs/:id/retry-failed',
      handler: act(
        read(async (_q, response, params) => {
          const runId = runIdOf(params);
          if (!(await runExists(app.db, runId))) {
            return sendJson(response, 404, { error: `there is no run ${runId}` });
          }
          const requeued = await retryFailedChunks(app, runId);
          log.info({ runId, requeued }, 'failed chunks re-queued from the console');
          return sendJson(response, 200, { runId, requeued });
        }, 'api'),
      ),
    },
    {
      method: 'POST',
      path: '/api/runs/:id/resume',
      handler: act(
        read(async (_q, response, params) => {
          const runId = runIdOf(params);
          if (!(await runExists(app.db, runId))) {
            return sendJson(response, 404, { error: `there is no run ${runId}` });
          }
          const outcome = await resumeRuns(app, runId);
          log.info({ runId, ...outcome }, 'run resumed from the console');
          if (!outcome.runs.includes(runId)) {
            return sendJson(response, 409, {
              error: `run ${runId} is not running, paused or stopped`,
            });
          }
          return sendJson(response, 200, { runId, dispatched: outcome.dispatched });
        }, 'api'),
      ),
    },
    {
      method: 'GET',
      path: '/api/coverage',
      handler: read(async (request, response) => {
        const query = queryOf(request);
        const grid = await coverageGrid(app.db, {
          dataset: datasetOf(query.get('dataset')),
          bucket: bucketOf(query.get('bucket')),
          fromYear: yearOf('from', query.get('from')),
          toYear: yearOf('to', query.get('to')),
          page: wholeOf('page', query.get('page'), 1, 1, 1_000_000),
          pageSize: wholeOf('pageSize', query.get('pageSize'), 50, 1, MAX_PAGE_SIZE),
        });
        return sendJson(response, 200, grid);
      }, 'api'),
    },
    {
      method: 'GET',
      path: '/api/freshness',
      handler: read(
        async (_q, response) =>
          sendJson(response, 200, await freshnessBoard(app.db, app.config.sync.maxLagHours)),
        'api',
      ),
    },
    {
      method: 'GET',
      path: '/api/alerts',
      handler: read(
        async (_q, response) =>
          sendJson(response, 200, await alertsBoard(app.db, app.config.notify.targets)),
        'api',
      ),
    },
    {
      method: 'GET',
      path: '/api/upstream',
      handler: read(
        async (_q, response) => sendJson(response, 200, await upstreamBoard(app.db)),
        'api',
      ),
    },
    {
      method: 'GET',
      path: '/api/rate-limit',
      handler: read(async (_q, response) => {
        const rate = await readCallRate(app.db, app.config.rateLimits);
        ingest ??= app.queues.queue(QUEUE_NAMES.ingest);
        const pauseMs = await queuePauseMs(ingest);
        const pausedUntil = pauseMs > 0 ? new Date(Date.now() + pauseMs).toISOString() : null;
        const quota = await readQuotaGauge(admissionStores(app.queues).quota, app.config);
        return sendJson(response, 200, { ...rate, pausedUntil, quota });
      }, 'api'),
    },
    {
      method: 'GET',
      path: '/api/quota',
      handler: read(
        async (_q, response) =>
          sendJson(response, 200, {
            quota: await readQuotaGauge(admissionStores(app.queues).quota, app.config),
          }),
        'api',
      ),
    },
    {
      method: 'GET',
      path: '/api/workers',
      handler: read(
        async (_q, response) =>
          sendJson(response, 200, {
            workers: await app.queues.listWorkers(QUEUE_NAMES.ingest),
            heartbeatMs: app.config.worker.heartbeatMs,
          }),
        'api',
      ),
    },
    { method: 'GET', path: QUEUE_BOARD_PATH, handler: read(board, 'page') },
    { method: 'GET', path: `${QUEUE_BOARD_PATH}/*`, handler: read(board, 'page') },
  ];
  return routes.map((route) => ({
    ...route,
    handler: (request, response, params) => {
      const refusal = hosts.refusal(request);
      if (refusal === undefined) return route.handler(request, response, params);
      log.debug({ host: request.headers.host?.slice(0, 80) }, 'console refused a request by Host');
      return sendText(response, 421, refusal);
    },
  }));
}

function queryOf(request: IncomingMessage): URLSearchParams {
  return new URL(request.url ?? '/', 'http://console').searchParams;
}

function datasetOf(value: string | null): Dataset {
  if (value === null) return DATASETS[0]!;
  if (!(DATASETS as readonly string[]).includes(value)) {
    throw new BadRequest(`dataset must be one of ${DATASETS.join(', ')} (got "${value}")`);
  }
  return value as Dataset;
}

function bucketOf(value: string | null): CoverageBucket {
  if (value === null || value === 'month' || value === 'year') return value ?? 'month';
  throw new BadRequest(`bucket must be month or year (got "${value}")`);
}

function wholeOf(
  name: string,
  value: string | null,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new BadRequest(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return n;
}

function yearOf(name: string, value: string | null): number | undefined {
  return value === null || value === '' ? undefined : wholeOf(name, value, 0, 1900, 2200);
}

/** The body of `request`, up to `limit` bytes (more is refused). */
async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw new BadRequest('the form is too large');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Each failed chunk with the address of its trace (ENVDATA_TRACE_URL, `{traceId}` replaced),
 * when it has a trace id and the address is set.
 */
function withTraceUrls(groups: readonly FailedChunkGroup[], template: string | undefined) {
  return groups.map((g) => ({
    ...g,
    examples: g.examples.map((c) => ({
      ...c,
      traceUrl:
        template && c.traceId
          ? template.replaceAll('{traceId}', encodeURIComponent(c.traceId))
          : null,
    })),
  }));
}
