import type { App } from '../app.js';
import { pauseRun } from '../ledger/pause-run.js';
import { runProgress } from '../ledger/run-progress.js';
import type { CommandContext } from './command-context.js';
import { shutdownSignal } from './shutdown-signal.js';
import { waitForJobsGone } from './wait-for-jobs-gone.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { readQueueHolds } from '../status/run-waiting.js';
import { formatRunSummary, runSucceeded, watchRun } from './watch-run.js';

export interface FollowOptions {
  /** Work in this process too (a worker like any other: it takes jobs of every running run). */
  readonly localWorker: boolean;
  readonly concurrency: number;
  /**
   * Jobs that belong to the runs beside their chunks (a sync's snapshots): their end is
   * awaited too before a summary is printed, so what they set aside is counted.
   */
  readonly jobIds?: readonly string[];
}

/** Exit code after Ctrl-C (128 + SIGINT), as shells expect. */
const INTERRUPTED = 130;

/**
 * `--wait`: follows the runs to their end with a local worker (unless `localWorker` is off),
 * prints each summary and sets the exit code (0 only when every run succeeded). The first Ctrl-C
 * or SIGTERM stops following: with a local worker the unfinished runs are paused — their chunks
 * in flight land, no other starts anywhere — and the commands to continue or cancel them are
 * printed; a watcher without a worker only stops watching (the runs go on elsewhere).
 *
 * The local worker is a component of `app`: it works until the app stops (the command's
 * `withApp` stops it on the way out, after what is printed here), so chunks in flight land.
 */
export async function followRuns(
  app: App,
  context: CommandContext,
  runIds: readonly number[],
  options: FollowOptions,
): Promise<void> {
  // Listening before the worker starts: a signal during start-up is an interruption too.
  let interrupted = false;
  const stopping = new AbortController();
  const stop = shutdownSignal().then(() => {
    interrupted = true;
    stopping.abort();
  });
  if (options.localWorker) await app.start({ worker: { concurrency: options.concurrency } });
  // The queue's holds for the --wait line: throttled, or no worker (without a local one).
  const ingest = app.queues.queue(QUEUE_NAMES.ingest);
  const queueHolds = () => readQueueHolds(ingest, () => app.queues.listWorkers(QUEUE_NAMES.ingest));
  for (const [i, runId] of runIds.entries()) {
    const progress = await watchRun(app.db, runId, {
      statusLine: context.statusLine,
      logger: app.logger,
      stop,
      outages: app.outages,
      queueHolds,
      config: app.config,
    });
    if (interrupted && progress.status === 'running') {
      await interrupt(app, context, runIds.slice(i), options.localWorker);
      return;
    }
    // The run's other jobs (a sync's snapshots) may set values aside after its last chunk.
    if (options.jobIds?.length) {
      await waitForJobsGone(ingest, options.jobIds, {
        signal: stopping.signal,
        outages: app.outages,
      });
      if (interrupted) {
        context.print(
          `stopped waiting for the snapshots of run ${runId}; other workers go on with them`,
        );
        context.exitCode = INTERRUPTED;
        return;
      }
    }
    const final = options.jobIds?.length
      ? ((await runProgress(app.db, runId)) ?? progress)
      : progress;
    context.print(formatRunSummary(final, app.config));
    if (!runSucceeded(final)) context.exitCode = 1;
  }
}

async function interrupt(
  app: App,
  context: CommandContext,
  runIds: readonly number[],
  paused: boolean,
): Promise<void> {
  context.exitCode = INTERRUPTED;
  for (const runId of runIds) {
    if (paused) await pauseRun(app.db, runId);
    const p = (await runProgress(app.db, runId))!;
    const at = `${p.done}/${p.total} chunks, ${p.rows} rows, ${p.calls} calls`;
    context.print(
      paused && p.status === 'paused'
        ? `interrupted: run ${runId} (${p.kind}) is paused at ${at}; chunks in flight land, no other starts.\n` +
            `  continue: envdata resume ${runId} --wait\n  drop the rest: envdata cancel ${runId}`
        : `stopped watching run ${runId} (${p.kind}, ${p.status}) at ${at}; other workers go on with it.\n` +
            `  follow: envdata status ${runId}\n  pause: envdata pause ${runId}\n  drop the rest: envdata cancel ${runId}`,
    );
  }
}
