import { formatHeldEta } from './format-held-eta.js';
import { formatWaiting } from './format-waiting.js';
import { heldRunEtaMs } from '../planner/held-run-eta.js';
import type { Config } from '../config/config.js';
import type { Kysely } from 'kysely';
import { EnvdataError } from '../errors/envdata-error.js';
import { runProgress, type RunProgress } from '../ledger/run-progress.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import type { Logger } from '../logging/create-logger.js';
import { formatDuration } from '../planner/estimate-plan.js';
import type { Database } from '../warehouse/schema.js';
import { formatProgressBar } from './format-progress-bar.js';
import type { StatusLine } from './status-line.js';
import { withQueueWaiting, type QueueHolds } from '../status/run-waiting.js';
import { formatValuesSetAside } from '../ledger/values-set-aside.js';

export interface WatchOptions {
  /**
   * A terminal: a progress bar is kept at its bottom, below the log lines. Without one, a log
   * line every `logEveryMs`.
   */
  readonly statusLine?: StatusLine | undefined;
  readonly logger: Logger;
  /**
   * Without a terminal: where the periodic progress goes as a line of text (the progress bar's
   * text) instead of a log object, for output read by people (the demo).
   */
  readonly print?: (line: string) => void;
  readonly pollMs?: number;
  readonly logEveryMs?: number;
  /** Resolves to stop watching early (a signal). */
  readonly stop?: Promise<void>;
  /**
   * Rides out an outage of Postgres or Redis: watching pauses (said once, by the monitor) and
   * resumes when it is over. Without it, a failed read of the ledger throws.
   */
  readonly outages?: OutageMonitor;
  /**
   * The quota and rate settings: while the run waits on a quota or the budget, its ETA is at
   * least the reset plus the work left after it (`heldRunEtaMs`). Without them, the pace alone.
   */
  readonly config?: Pick<Config, 'quota' | 'rateLimits'>;
  /**
   * What the queue adds to the run's holds (`readQueueHolds`): the line then says `throttled
   * (429)` or `no worker connected — start \`envdata worker\`` too. Read at most every
   * `holdsEveryMs`; a failed read shows none.
   */
  readonly queueHolds?: () => Promise<QueueHolds>;
}

/** How often the queue's holds are read while watching (a `CLIENT LIST` or a session scan). */
const HOLDS_EVERY_MS = 2_000;

/**
 * Follows a run in the ledger until it is no longer running: a progress bar on a terminal
 * (chunks done/total, rows, calls/s, ETA), kept below the log lines; a log line every
 * `logEveryMs` otherwise.
 */
export async function watchRun(
  db: Kysely<Database>,
  runId: number,
  options: WatchOptions,
): Promise<RunProgress> {
  const pollMs = options.pollMs ?? 500;
  const logEveryMs = options.logEveryMs ?? 10_000;
  const { statusLine } = options;
  const started = Date.now();
  const stopping = new AbortController();
  void options.stop?.then(() => stopping.abort());
  const stopped = () => stopping.signal.aborted;
  let holds: QueueHolds | undefined;
  let holdsAt = 0;
  /** The run's progress with the queue's holds (`queueWaiting`), read every `HOLDS_EVERY_MS`. */
  const withHolds = async (p: RunProgress | undefined): Promise<RunProgress | undefined> => {
    if (!p || !options.queueHolds) return p;
    if (Date.now() - holdsAt >= HOLDS_EVERY_MS) {
      holdsAt = Date.now();
      holds = await options.queueHolds().catch(() => undefined);
    }
    return holds ? withQueueWaiting(p, holds) : p;
  };
  /** The run's progress; `undefined` when stopped during an outage. */
  const read = async (): Promise<RunProgress | undefined> => {
    for (;;) {
      try {
        return await withHolds(await runProgress(db, runId));
      } catch (error) {
        if (!options.outages?.report(error)) throw error;
        await options.outages.whenAvailable(stopping.signal);
        if (stopped()) return undefined;
        await pause(pollMs, stopping.signal);
      }
    }
  };
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
  const startFinished = progress.done + progress.failed;
  const pace = (p: RunProgress) => {
    const seconds = Math.max(1, (Date.now() - started) / 1000);
    const finished = p.done + p.failed;
    const left = p.total - finished;
    const chunksPerSecond = (finished - startFinished) / seconds;
    const paceMs = left > 0 && chunksPerSecond > 0 ? (left / chunksPerSecond) * 1000 : undefined;
    return {
      finished,
      left,
      callsPerSecond: Number(((p.calls - startCalls) / seconds).toFixed(1)),
      etaMs: options.config ? heldRunEtaMs(left, p.waiting, options.config, paceMs) : paceMs,
    };
  };
  const line = (p: RunProgress) => {
    const { callsPerSecond, etaMs } = pace(p);
    const bar = formatProgressBar({
      runId,
      done: p.done,
      failed: p.failed,
      dropped: p.dropped,
      total: p.total,
      rows: p.rows,
      callsPerSecond,
      etaMs,
    });
    return p.waiting ? `${bar}  ${formatWaiting(p.waiting)}` : bar;
  };
  const draw = (p: RunProgress) => statusLine?.show(line(p));
  try {
    draw(progress);
    while (progress.status === 'running' && !stopped()) {
      await pause(pollMs, stopping.signal);
      if (stopped()) break;
      progress = (await read()) ?? progress;
      if (statusLine) {
        draw(progress);
      } else if (Date.now() - lastLog >= logEveryMs) {
        lastLog = Date.now();
        if (options.print) {
          options.print(line(progress));
          continue;
        }
        const { callsPerSecond, etaMs } = pace(progress);
        options.logger.info(
          {
            runId,
            done: progress.done,
            failed: progress.failed,
            total: progress.total,
            rows: progress.rows,
            callsPerSecond,
            eta: etaMs === undefined ? undefined : formatDuration(etaMs),
            ...(progress.waiting && { waiting: formatWaiting(progress.waiting) }),
          },
          'progress',
        );
      }
    }
  } finally {
    statusLine?.release();
  }
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

/**
 * Whether a finished run may exit 0: it is done, and every planned hour landed, was answered
 * "no data" or "not covered", or is recorded missing upstream because the service never sent it.
 * Hours whose records were quarantined (conflicting duplicates and records the parser rejected
 * included) are not a success, nor are records the service sent without a readable hour, nor
 * values set aside (a share whose unit is unknown, a held shape) though their hours landed.
 */
export function runSucceeded(p: RunProgress): boolean {
  return (
    p.status === 'done' &&
    p.quarantinedHours === 0 &&
    p.unplaceableRecords === 0 &&
    p.setAside.length === 0
  );
}

/** The end-of-run summary: counts, hours that did not land by cause, failures by error code. */
export function formatRunSummary(
  p: RunProgress,
  config?: Pick<Config, 'quota' | 'rateLimits'>,
): string {
  const lines = [
    `run ${p.runId} (${p.kind}) ${p.status}: ${p.done}/${p.total} chunks done, ${p.failed} failed` +
      (p.dropped > 0 ? `, ${p.dropped} dropped (cancelled)` : '') +
      `, ${p.rows} rows, ${p.calls} calls`,
  ];
  // Records whose values were set aside have their own line below; their hours landed.
  const setAsideRecords = p.setAside.reduce((n, g) => n + g.records, 0);
  const quarantined = Math.max(0, p.recordsQuarantined - setAsideRecords);
  if (p.quarantinedHours > 0 || quarantined > 0) {
    lines.push(
      `  quarantined: ${quarantined} record(s), ${p.quarantinedHours} hour(s) without rows ` +
        '(invalid or conflicting records; reasons in envdata.quarantine, hours in analytics.coverage)',
    );
  }
  if (p.unplaceableRecords > 0) {
    lines.push(
      `  unplaceable: ${p.unplaceableRecords} of them sent without a readable hour ` +
        `(an empty record, an unreadable stamp; listed by \`envdata status ${p.runId}\`)`,
    );
  }
  if (p.missingHours > 0) {
    lines.push(
      `  missing upstream: ${p.missingHours} hour(s) the service never sent, even when asked again ` +
        '(analytics.coverage.missing_upstream_ranges; a later backfill asks once more)',
    );
  }
  if (p.refetching > 0) lines.push(`  ${p.refetching} chunk(s) waiting to be fetched again`);
  if (p.notCoveredHours > 0) {
    lines.push(`  not covered by the service (404): ${p.notCoveredHours} hour(s)`);
  }
  if (p.noDataHours > 0) {
    lines.push(
      `  no data ("Data not available!"): ${p.noDataHours} hour(s) ` +
        '(analytics.coverage.no_data_ranges; a later backfill asks again after ENVDATA_NO_DATA_RECHECK)',
    );
  }
  for (const [code, n] of Object.entries(p.failures).sort((a, b) => b[1] - a[1])) {
    lines.push(`  ${code}: ${n} chunk(s) failed`);
  }
  if (p.waiting) {
    const after = p.waiting.until === null ? '' : ' (no attempt used; resumes by itself)';
    lines.push(`  ${formatWaiting(p.waiting)}${after}${config ? formatHeldEta(p, config) : ''}`);
  }
  if (p.blockedDatasets.length) lines.push(`  stopped fetching: ${p.blockedDatasets.join(', ')}`);
  if (p.errorMessage) lines.push(`  ${p.errorCode ?? 'error'}: ${p.errorMessage}`);
  if (p.failed > 0) lines.push(`  re-queue the failed chunks with \`envdata retry ${p.runId}\``);
  // Values set aside are one line: the exit line itself when nothing else fails the run.
  const setAside = formatValuesSetAside(p.setAside);
  const failsOtherwise = p.quarantinedHours > 0 || p.unplaceableRecords > 0;
  if (setAside !== '' && (p.status !== 'done' || failsOtherwise)) {
    lines.push(`  set aside: ${setAside}`);
  }
  if (p.status === 'done' && !runSucceeded(p)) {
    lines.push(
      p.quarantinedHours > 0
        ? '  exit 1: hours of the plan are quarantined, not in the warehouse'
        : p.unplaceableRecords > 0
          ? '  exit 1: the service sent records that could not be placed in any hour'
          : `  exit 1: ${setAside}`,
    );
  }
  if (p.status === 'stopped') lines.push(`  after fixing the cause: \`envdata resume ${p.runId}\``);
  return lines.join('\n');
}
