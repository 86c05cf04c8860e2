import cliProgress from 'cli-progress';
import type { Kysely } from 'kysely';
import { runProgress, type RunProgress } from '../ledger/run-progress.js';
import { EnvdataError } from '../errors/envdata-error.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import type { Logger } from '../logging/create-logger.js';
import { formatDuration } from '../planner/estimate-plan.js';
import type { Database } from '../warehouse/schema.js';

export interface WatchOptions {
  /** A progress bar (a terminal) or periodic log lines. */
  readonly interactive: boolean;
  readonly stream: NodeJS.WritableStream;
  readonly logger: Logger;
  readonly pollMs?: number;
  readonly logEveryMs?: number;
  /** Resolves to stop watching early (a signal). */
  readonly stop?: Promise<void>;
  /**
   * Rides out an outage of Postgres or Redis: watching pauses (said once, by the monitor) and
   * resumes when it is over. Without it, a failed read of the ledger throws.
   */
  readonly outages?: OutageMonitor;
}

/**
 * Follows a run in the ledger until it is no longer running: a progress bar on a terminal
 * (chunks done/total, rows, calls/s, ETA), a log line every `logEveryMs` otherwise.
 */
export async function watchRun(
  db: Kysely<Database>,
  runId: number,
  options: WatchOptions,
): Promise<RunProgress> {
  const pollMs = options.pollMs ?? 500;
  const logEveryMs = options.logEveryMs ?? 10_000;
  const started = Date.now();
  const stopping = new AbortController();
  void options.stop?.then(() => stopping.abort());
  const stopped = () => stopping.signal.aborted;
  /** The run's progress; `undefined` when stopped during an outage. */
  const read = async (): Promise<RunProgress | undefined> => {
    for (;;) {
      try {
        return await runProgress(db, runId);
      } catch (error) {
        if (!options.outages?.report(error)) throw error;
        await options.outages.whenAvailable(stopping.signal);
        if (stopped()) return undefined;
        await pause(pollMs, stopping.signal);
      }
    }
  };
  const bar = options.interactive
    ? new cliProgress.SingleBar(
        {
          format:
            'run {runId} {bar} {percentage}% | {value}/{total} chunks | {rows} rows | {rate} calls/s | ETA {eta_formatted}',
          stream: options.stream,
          etaBuffer: 50,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let lastLog = 0;
  let progress = await read();
  if (!progress && stopped()) {
    throw new EnvdataError(
      'DATABASE_UNAVAILABLE',
      `stopped while Postgres was down, before the progress of run ${runId} could be read: follow it with \`envdata status ${runId}\``,
    );
  }
  if (!progress) throw new Error(`run ${runId} is not in the ledger`);
  const startCalls = progress.calls;
  bar?.start(progress.total, progress.done + progress.failed, { runId, rows: 0, rate: '0.0' });
  while (progress.status === 'running' && !stopped()) {
    await pause(pollMs, stopping.signal);
    if (stopped()) break;
    progress = (await read()) ?? progress;
    const rate = (
      (progress.calls - startCalls) /
      Math.max(1, (Date.now() - started) / 1000)
    ).toFixed(1);
    if (bar) {
      bar.setTotal(progress.total);
      bar.update(progress.done + progress.failed, { runId, rows: progress.rows, rate });
    } else if (Date.now() - lastLog >= logEveryMs) {
      lastLog = Date.now();
      const left = progress.total - progress.done - progress.failed;
      const perSecond = Number(rate);
      options.logger.info(
        {
          runId,
          done: progress.done,
          failed: progress.failed,
          total: progress.total,
          rows: progress.rows,
          callsPerSecond: perSecond,
          eta: perSecond > 0 ? formatDuration((left / perSecond) * 1000) : undefined,
        },
        'progress',
      );
    }
  }
  bar?.stop();
  return progress;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The end-of-run summary: counts and failures grouped by error code. */
export function formatRunSummary(p: RunProgress): string {
  const lines = [
    `run ${p.runId} (${p.kind}) ${p.status}: ${p.done}/${p.total} chunks done, ${p.failed} failed, ${p.rows} rows, ${p.calls} calls`,
  ];
  for (const [code, n] of Object.entries(p.failures).sort((a, b) => b[1] - a[1])) {
    lines.push(`  ${code}: ${n} chunk(s) failed`);
  }
  if (p.blockedDatasets.length) lines.push(`  stopped fetching: ${p.blockedDatasets.join(', ')}`);
  if (p.errorMessage) lines.push(`  ${p.errorCode ?? 'error'}: ${p.errorMessage}`);
  if (p.failed > 0) lines.push(`  re-queue the failed chunks with \`envdata retry ${p.runId}\``);
  if (p.status === 'stopped') lines.push(`  after fixing the cause: \`envdata resume ${p.runId}\``);
  return lines.join('\n');
}
