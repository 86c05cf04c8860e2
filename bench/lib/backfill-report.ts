import { PaceMargin } from '../../src/admission/pace-margin.js';
import type { LedgerSize } from '../ledger-size.js';
import type { BackendFigures } from './backend-run.js';
import type { BackfillOptions } from './backfill-options.js';
import { BENCH_QUOTA, type RateLimited } from './rate-limited-run.js';
import { FACT_TABLES, sumCeilings, type Ceilings } from './ceiling.js';
import { TARGET_FULL_QUEUE_REDIS_BYTES } from './full-queue-plan.js';
import { fmtInt, fmtPct, fmtSec, printMisses, rate, table, verdict } from './report.js';
import { printTracingCost } from './tracing-cost-report.js';

/** End to end at this share of the INSERT … SELECT ceiling at least. */
export const TARGET_SHARE_OF_CEILING = 0.5;
/** The most the shape of an answer may cost, as a share of the worker's CPU per call (issue 36). */
export const TARGET_SHAPE_SHARE = 0.02;
/** Rate limited: this share of R at least, in steady state, with 0 × 429 (issue 23). */
export const TARGET_SHARE_OF_RATE = 0.97;

export interface BackfillReport {
  readonly options: BackfillOptions;
  readonly backends: readonly BackendFigures[];
  /** Part 1's ceilings; part 4's ledger: when measured. */
  readonly ceilings?: Ceilings;
  readonly ledger?: LedgerSize;
  /** Part 5's runs, per backend: printed after the other parts, judged with them. */
  readonly tracing?: Parameters<typeof printTracingCost>[0];
  readonly seconds: number;
}

/** A figure's label, its cell per backend, and what postgres/redis compares, if anything. */
interface Row {
  readonly label: string;
  readonly cell: (b: BackendFigures) => string;
  readonly ratioOf?: (b: BackendFigures) => number;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
const indent = (text: string): string => text.replace(/^/gm, '   ');

/**
 * Prints the parts measured, 1 to 3 with one column per backend (and postgres/redis where both
 * ran), part 4 once (the ledger does not depend on the queue), then the targets missed.
 */
export function printBackfillReport(r: BackfillReport): void {
  const o = r.options;
  const names = r.backends.map((b) => b.backend);
  const redis = r.backends.find((b) => b.backend === 'redis');
  const postgres = r.backends.find((b) => b.backend === 'postgres');
  const both = redis !== undefined && postgres !== undefined;
  const misses: string[] = [];
  const judge = (ok: boolean, what: string): string => {
    if (!ok) misses.push(what);
    return verdict(ok);
  };
  /**
   * One column per backend; a postgres/redis column when both ran and a row has a `ratioOf`
   * (the ratio of its figures).
   */
  const sideBySide = (rows: readonly Row[]): string => {
    const ratios = both && rows.some((row) => row.ratioOf);
    return indent(
      table(
        ['figure', ...names, ...(ratios ? ['postgres/redis'] : [])],
        rows.map((row) => [
          row.label,
          ...r.backends.map(row.cell),
          ...(ratios
            ? [row.ratioOf ? (row.ratioOf(postgres) / row.ratioOf(redis)).toFixed(2) : '']
            : []),
        ]),
      ),
    );
  };
  const row = (
    label: string,
    cell: (b: BackendFigures) => string,
    ratioOf?: (b: BackendFigures) => number,
  ): Row => ({ label, cell, ...(ratioOf ? { ratioOf } : {}) });

  const out: string[] = [
    '',
    `envdata bench:backfill — queue backends ${names.join(', ')}; parts ${o.parts.join(', ')}; ${o.locations} locations, ` +
      `${o.days} days of pollen and weather, concurrency ${o.concurrency}; run time ${fmtSec(r.seconds)} s`,
    '',
  ];
  const ceilings = r.ceilings;
  if (ceilings && r.backends.every((b) => b.endToEnd)) {
    const insertSelect = sumCeilings(...FACT_TABLES.map((t) => ceilings.insertSelect[t]));
    const copy = sumCeilings(...FACT_TABLES.map((t) => ceilings.copy[t]));
    const ceilingRate = rate(insertSelect.rows, insertSelect.seconds);
    const copyRate = rate(copy.rows, copy.seconds);
    const rowsPerSecond = (b: BackendFigures) => rate(b.endToEnd!.rows, b.endToEnd!.seconds);
    const share = (b: BackendFigures) => rowsPerSecond(b) / ceilingRate;
    const cpuMsPerChunk = (b: BackendFigures) =>
      (b.endToEnd!.cpuSeconds * 1_000) / Math.max(1, b.endToEnd!.chunks);

    out.push(
      `1. end to end: a backfill against the simulator (its own process, no rate limit)`,
      `   ceilings, the landed rows written again into identical tables (measured once, on ${names[0]}'s rows):`,
      `   server-side INSERT … SELECT ${fmtInt(insertSelect.rows)} rows in ${fmtSec(insertSelect.seconds)} s = ${fmtInt(ceilingRate)} rows/s; ` +
        `binary COPY FROM STDIN ${fmtInt(copy.rows)} rows in ${fmtSec(copy.seconds)} s = ${fmtInt(copyRate)} rows/s`,
      '',
      sideBySide([
        row(
          'chunks / calls',
          (b) => `${fmtInt(b.endToEnd!.chunks)} / ${fmtInt(b.endToEnd!.calls)}`,
        ),
        row('rows', (b) => fmtInt(b.endToEnd!.rows)),
        row('run', (b) => b.endToEnd!.status),
        row('seconds', (b) => b.endToEnd!.seconds.toFixed(1)),
        row('rows/s', (b) => fmtInt(rowsPerSecond(b)), rowsPerSecond),
        row(
          'calls/s',
          (b) => fmtInt(rate(b.endToEnd!.calls, b.endToEnd!.seconds)),
          (b) => rate(b.endToEnd!.calls, b.endToEnd!.seconds),
        ),
        row(
          `of INSERT … SELECT (≥ ${fmtPct(TARGET_SHARE_OF_CEILING)})`,
          (b) =>
            `${fmtPct(share(b))} ${judge(share(b) >= TARGET_SHARE_OF_CEILING, `${b.backend}: end to end at ${fmtPct(share(b))} of the INSERT … SELECT ceiling`)}`,
        ),
        row('of COPY', (b) => fmtPct(rowsPerSecond(b) / copyRate)),
        row(
          'worker CPU ms per chunk (one call)',
          (b) => cpuMsPerChunk(b).toFixed(2),
          cpuMsPerChunk,
        ),
        row('calls/s one core sustains', (b) => fmtInt(1_000 / cpuMsPerChunk(b))),
        row(`answer shape µs per call, of worker CPU (≤ ${fmtPct(TARGET_SHAPE_SHARE)})`, (b) => {
          if (!b.shapeCost) return '-';
          const share = b.shapeCost.cpuMicros / 1_000 / cpuMsPerChunk(b);
          return `${b.shapeCost.cpuMicros.toFixed(0)} µs = ${fmtPct(share)} ${judge(share <= TARGET_SHAPE_SHARE, `${b.backend}: the answers' shapes cost ${fmtPct(share)} of worker CPU per call`)}`;
        }),
      ]),
      '   worker CPU: this process (worker, feeder, planning) over the run; the simulator and',
      '   Postgres are not in it. One core sustains 1,000 ms / that many calls per second: size',
      "   worker hosts for the plan's rate with headroom (see part 2 for the cost at the limit).",
      '   answer shape: ShapeRecorder.observe per history answer (shape, digest, counting and its',
      '   flushes), CPU of this process, against the worker CPU per call of the same run.',
    );
  }

  const rl = (b: BackendFigures) => b.rateLimited!;
  const rq = (b: BackendFigures) => b.rateLimitedQuota!;
  if (r.backends.every((b) => b.rateLimited && b.rateLimitedQuota && b.quotaCheck)) {
    const target = o.rate * TARGET_SHARE_OF_RATE;
    const initial = new PaceMargin(1_000);
    const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
    /** The rows of one rate-limited run (`of`: which one). */
    const rateRows = (of: (b: BackendFigures) => RateLimited, what: string): Row[] => {
      const steady = (b: BackendFigures) => of(b).steadyRate;
      return [
        row(`calls (the simulator counted), ${what}`, (b) => fmtInt(of(b).calls)),
        row('run', (b) => `${of(b).status} ${of(b).done}/${of(b).chunks}`),
        row('seconds, planning to end', (b) => of(b).seconds.toFixed(1)),
        row(
          `calls/s steady (≥ ${fmtPct(TARGET_SHARE_OF_RATE)} of R = ${target.toFixed(1)})`,
          (b) =>
            `${steady(b).toFixed(2)} = ${pct(steady(b) / o.rate)} ${judge(steady(b) >= target, `${b.backend}: rate limited${of(b).withQuota ? ' with a quota' : ''} at ${pct(steady(b) / o.rate)} of R (load ${of(b).load.toFixed(2)})`)}`,
          steady,
        ),
        row(
          '  rate windows counted; most calls in one',
          (b) => `${of(b).steadyWindows}; ${of(b).mostPerWindow}`,
        ),
        row(
          '429s provoked (target 0)',
          (b) =>
            `${of(b).throttled} ${judge(of(b).throttled === 0, `${b.backend}: ${of(b).throttled} 429s provoked${of(b).withQuota ? ' with a quota' : ''}`)}`,
        ),
        row('pacer margin measured at the end (ceiling)', (b) => {
          const margin = of(b).marginMs;
          return margin === undefined
            ? 'no pacer'
            : `${margin} ms (${pct(1_000 / (1_000 + margin))})`;
        }),
        row('worker CPU ms per call at R', (b) =>
          ((of(b).cpuSeconds * 1_000) / Math.max(1, of(b).calls)).toFixed(2),
        ),
        row('worker CPU, share of one core at R', (b) =>
          fmtPct(of(b).cpuSeconds / Math.max(1e-9, of(b).seconds)),
        ),
        row('load (1 min) at the end', (b) => of(b).load.toFixed(2)),
      ];
    };
    const check = (b: BackendFigures) => b.quotaCheck!;
    out.push(
      '',
      `2. rate limited: simulator ${o.rate} calls/s per key (Retry-After sometimes), ENVDATA_RATE_LIMIT=${o.rate}/s, ` +
        `~${fmtInt(o.rate * o.rateSeconds)} chunks of weather (${o.rateSeconds} s at R)`,
      `   steady rate: the simulator's own count, calls over its rate windows (first and last left out)`,
      `   the pacer (CallPacer): ${o.rate} calls per window of 1,000 ms + a margin it measures (PaceMargin: the spread`,
      `   of the delays from slot to service; ${initial.initialMs} ms = ${pct(1_000 / (1_000 + initial.initialMs))} of R until measured, 3 to ${initial.maxMs} ms)`,
      `   with a quota: ENVDATA_QUOTA=${BENCH_QUOTA.quota} ENVDATA_SYNC_RESERVE=${BENCH_QUOTA.syncReserve}`,
      '',
      sideBySide([
        ...rateRows(rl, 'no quota'),
        row('', () => ''),
        ...rateRows(rq, 'quota + reserve'),
        row('', () => ''),
        row(
          'quota check, one after another: µs per check',
          (b) => check(b).wallMicros.toFixed(0),
          (b) => check(b).wallMicros,
        ),
        row(
          '  worker CPU µs per check',
          (b) => check(b).cpuMicros.toFixed(0),
          (b) => check(b).cpuMicros,
        ),
        row('  checks/s one core sustains', (b) => fmtInt(check(b).perCoreSecond)),
        row('  load (1 min)', (b) => check(b).load.toFixed(2)),
      ]),
      `   quota check: QuotaGate.take of a backfill's call, ${fmtInt(r.backends[0]!.quotaCheck!.checks)} in a row on the backend's shared counters`,
    );
  }

  if (r.backends.every((b) => b.fullQueue)) {
    const full = (b: BackendFigures) => b.fullQueue!;
    out.push(
      '',
      `3. plan of 1,000 locations × 30 years of weather (48 h windows), the queue filled once (ENVDATA_MAX_QUEUED_JOBS)`,
      '',
      sideBySide([
        row('chunks planned', (b) => fmtInt(full(b).chunks)),
        row('planning seconds', (b) => full(b).planSeconds.toFixed(2)),
        row('ledger after planning', (b) => mb(full(b).ledgerBytes)),
        row('jobs queued', (b) => fmtInt(full(b).jobs)),
        row(`full queue (redis: memory, ≤ ${TARGET_FULL_QUEUE_REDIS_BYTES / 1e6} MB)`, (b) => {
          const bytes = full(b).queueBytes;
          if (b.backend !== 'redis') return `+${mb(bytes)} on disk`;
          const ok = bytes <= TARGET_FULL_QUEUE_REDIS_BYTES;
          return `+${mb(bytes)} ${judge(ok, `redis: a full queue takes ${mb(bytes)}`)}`;
        }),
        row('queue in all (postgres: envdata_queue)', (b) => mb(full(b).queueTotalBytes)),
      ]),
      `   redis: MEMORY USAGE of the queue's keys; postgres: pg_total_relation_size of the tables of schema envdata_queue (compacted before filling)`,
    );
  }

  const l = r.ledger;
  if (l) {
    const perYear = (bytes: number) => bytes / l.locationYears;
    out.push(
      '',
      `4. ledger of a finished plan of ${fmtInt(l.chunks)} chunks (${fmtInt(l.locationYears)} location-years of weather; no queue)`,
      `   before (every done chunk kept): ${(l.beforeBytes / 1e6).toFixed(1)} MB = ${fmtInt(perYear(l.beforeBytes))} B per covered location-year`,
      `   after (coverage ranges, chunks folded into their run): ${mb(l.afterBytes)} = ${fmtInt(perYear(l.afterBytes))} B per covered location-year (${(l.beforeBytes / l.afterBytes).toFixed(0)}× smaller)`,
      `   1,000 locations × 30 years: ${((perYear(l.beforeBytes) * 30_000) / 1e9).toFixed(2)} GB before, ${mb(perYear(l.afterBytes) * 30_000)} after`,
    );
  }
  out.push('');
  console.log(out.join('\n'));
  if (r.tracing) misses.push(...printTracingCost(r.tracing));
  printMisses(misses);
}
