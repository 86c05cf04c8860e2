/**
 * The test files that run on both queue backends (ENVDATA_QUEUE_BACKEND=redis and =postgres):
 * every file whose code under test enqueues, claims or counts jobs — a worker, the scheduler,
 * `backfill`/`sync`/`status` on the CLI. vitest.config.ts runs them twice, as projects `redis`
 * and `postgres`; every other file runs once, as project `core`.
 *
 * Left out on purpose: files about Redis itself (Redis flushed mid-run, a private Redis stopped:
 * `backfill.redis-flushed`, `long-running.outage`, …) and files that choose their backend themselves
 * (`backfill.queue-backends`, `queue-factory`). A new file that uses the queue belongs here;
 * `test/architecture/queue-suites.test.ts` fails when a listed file is gone.
 */
export const QUEUE_SUITES: readonly string[] = [
  'test/runtime/app.lifecycle.test.ts',
  'test/backfill/backfill.budget.test.ts',
  'test/backfill/backfill.by-place.test.ts',
  'test/backfill/backfill.calls-counted.test.ts',
  'test/backfill/backfill.clean-run.test.ts',
  'test/backfill/backfill.cli.test.ts',
  'test/backfill/backfill.completeness.test.ts',
  'test/backfill/backfill.hostile-retry-after.test.ts',
  'test/backfill/backfill.control.test.ts',
  'test/backfill/backfill.hostile-records.test.ts',
  'test/backfill/backfill.key-echo.test.ts',
  'test/backfill/backfill.no-data-recheck.test.ts',
  'test/backfill/backfill.partial.test.ts',
  'test/backfill/backfill.pay-once.test.ts',
  'test/backfill/backfill.poison.test.ts',
  'test/backfill/backfill.quota.test.ts',
  'test/backfill/backfill.range-too-long.test.ts',
  'test/backfill/backfill.rate-limited.test.ts',
  'test/backfill/backfill.response-too-large.test.ts',
  'test/backfill/backfill.revisions.test.ts',
  'test/backfill/backfill.resume-after-sigkill.test.ts',
  'test/backfill/backfill.server-errors.test.ts',
  'test/backfill/backfill.share-units.test.ts',
  'test/backfill/backfill.unauthorized.test.ts',
  'test/backfill/backfill.window-auto.test.ts',
  'test/cli/envdata-cli.test.ts',
  'test/cli/json-output.test.ts',
  'test/cli/long-running.signals.test.ts',
  'test/cli/run-cli.test.ts',
  'test/cli/held-run-eta.test.ts',
  'test/cli/run-waiting.test.ts',
  'test/cli/status-command.test.ts',
  'test/cli/status-known-empty.test.ts',
  'test/cli/status-workers.test.ts',
  'test/cli/strict-input.test.ts',
  'test/cli/watch-run.terminal.test.ts',
  'test/console/console.api.test.ts',
  'test/console/console.browser.test.ts',
  'test/console/console.progress-agreement.test.ts',
  'test/console/console.run-ends.test.ts',
  'test/demo/run-demo.test.ts',
  'test/declared/declared-owed-runs.test.ts',
  'test/dispatch/job-options.test.ts',
  'test/admission/admission.test.ts',
  'test/admission/call-pacer.test.ts',
  'test/dispatch/queue-feeder.test.ts',
  'test/admission/quota-gate.test.ts',
  'test/declared/apply-budget.test.ts',
  'test/ingest/fetch-snapshot-job.test.ts',
  'test/ledger/block-dataset.test.ts',
  'test/lifecycle/open-resources.test.ts',
  'test/metrics/metrics.backfill.test.ts',
  'test/metrics/worker-metrics-port.test.ts',
  'test/notify/alerts.person-needed.test.ts',
  'test/notify/alerts.run-revised.test.ts',
  'test/notify/alerts.transitions.test.ts',
  'test/lineage/lineage.test.ts',
  'test/sync/sync-priority.test.ts',
  'test/sync/sync-scheduler.test.ts',
  'test/sync/sync.bi-reader.test.ts',
  'test/sync/sync.ledger.test.ts',
  'test/sync/sync.share-units.test.ts',
  'test/sync/sync.test.ts',
  'test/upstream/upstream-drift.test.ts',
  'test/warehouse/freshness-agreement.test.ts',
  'test/worker/ingest-worker.payload.test.ts',
  'test/worker/ingest-worker.shutdown.test.ts',
  'test/worker/worker-heartbeat.test.ts',
  'test/tracing/traces.test.ts',
  'test/tracing/tracing-off.test.ts',
];

/**
 * The test files that run only in the `redis` project: files about Redis deployments the
 * `postgres` backend has no counterpart of (a Redis Cluster of the file's own,
 * REDIS_CLUSTER_NODES). They choose the `redis` backend themselves; `core` leaves them out.
 */
export const REDIS_ONLY_SUITES: readonly string[] = ['test/cluster/backfill.redis-cluster.test.ts'];
