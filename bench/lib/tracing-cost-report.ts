import type { QueueBackend } from '../../src/config/config.js';
import { fmtInt, fmtMb, rate, table, verdict } from './report.js';
import {
  pairedRatioByMode,
  rowsPerSecondByMode,
  TRACING_MODES,
  type TracingCost,
} from './tracing-cost.js';

/** The most rows/s tracing may cost: 5 % at 100 % sampling, 2 % at 10 % (issue 41). */
const MAX_COST = { '100 %': 0.05, '10 %': 0.02 } as const;

/**
 * Part 5: rows/s with tracing off, at 100 % and at 10 %, their ratios to off, and the verdicts.
 * Returns the targets missed, for the bench's verdict at the end (`printBackfillReport`).
 */
export function printTracingCost(
  figures: readonly { readonly backend: QueueBackend; readonly cost: TracingCost }[],
): string[] {
  console.log(
    "\n5. OpenTelemetry traces: rows/s of a backfill, alternating off / on in rounds; vs off: the median over the rounds of each run against the round's run with tracing off (the medians of all runs beside it)",
  );
  const rows: string[][] = [];
  const misses: string[] = [];
  for (const { backend, cost } of figures) {
    const medians = rowsPerSecondByMode(cost);
    const paired = pairedRatioByMode(cost);
    const off = medians.get('off')!;
    for (const mode of TRACING_MODES) {
      const runs = cost.runs.filter((r) => r.mode === mode);
      const ratio = paired.get(mode)!;
      const target = mode === 'off' ? undefined : MAX_COST[mode];
      const ok = target === undefined || ratio >= 1 - target;
      if (!ok)
        misses.push(`${backend}: tracing at ${mode} costs ${((1 - ratio) * 100).toFixed(1)} %`);
      const cpuMs = runs.map((r) => (r.cpuSeconds * 1_000) / Math.max(1, r.chunks));
      rows.push([
        `${backend} tracing ${mode === 'off' ? 'off' : `on, ${mode} sampled`}`,
        runs.map((r) => fmtInt(rate(r.rows, r.seconds))).join(' / '),
        cpuMs.map((ms) => ms.toFixed(2)).join(' / '),
        fmtInt(medians.get(mode)!),
        mode === 'off'
          ? '1.00×'
          : `${ratio.toFixed(3)}× (${(medians.get(mode)! / off).toFixed(3)}×)`,
        target === undefined ? '' : `≥ ${(1 - target).toFixed(2)}×`,
        target === undefined ? '' : verdict(ok),
      ]);
    }
    // Chunks traced: all of those at 100 %, about one in ten of those at 10 %.
    const chunks = cost.runs.reduce(
      (n, r) => n + (r.mode === '100 %' ? r.chunks : r.mode === '10 %' ? r.chunks / 10 : 0),
      0,
    );
    const work = TRACING_MODES.map((mode) => `${cost.spanWorkUs.get(mode)!.toFixed(0)}`);
    rows.push([
      `${backend} spans alone, CPU µs/chunk`,
      work.join(' / '),
      'off / 100 % / 10 %',
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      `${backend} exported`,
      `${fmtInt(cost.spansExported)} spans, ${fmtMb(cost.bytesExported)}`,
      `~${(cost.spansExported / Math.max(1, chunks)).toFixed(1)} spans/chunk`,
      '',
      '',
      '',
      '',
    ]);
  }
  console.log(
    table(
      [
        '',
        'rows/s of each run',
        'worker CPU ms/chunk',
        'median rows/s',
        'vs off (medians)',
        'target',
        '',
      ],
      rows,
    ),
  );
  return misses;
}
