import type { Dataset } from '../../src/types.js';
import {
  fastest,
  sumCeilings,
  type Ceiling,
  type Ceilings,
  type CeilingResult,
} from './ceiling.js';
import { CHUNK_HOURS, type PhaseTotals } from './landing-run.js';
import type { MemorySample } from './memory.js';
import { printRevisionReport, type RevisionReport } from './revision-report.js';
import { fmtInt, fmtMb, fmtPct, fmtSec, printMisses, rate, table, verdict } from './report.js';

/** Weather, the widest rows, fresh at this share of its own INSERT … SELECT ceiling at least. */
export const TARGET_WEATHER_SHARE = 0.75;
/** All rows fresh at this share of the INSERT … SELECT ceiling at least. */
export const TARGET_SHARE_OF_CEILING = 0.6;
/** Re-landing identical rows at least this many times as fast as landing them fresh. */
export const TARGET_RELAND_SPEEDUP = 2;
/**
 * "Flat": what the batches leave on the heap (live heap after a full GC, after the last batch
 * against before the first) stays under this, however many batches ran.
 */
export const FLAT_LIVE_HEAP_BYTES = 16 * 1_048_576;

export interface UpsertReport {
  readonly options: {
    readonly locations: number;
    readonly days: number;
    readonly batch: number;
    readonly archiveRaw: boolean;
    readonly from: Date;
  };
  readonly fresh: Record<Dataset, PhaseTotals>;
  readonly reland: Record<Dataset, PhaseTotals>;
  readonly ceilingRuns: readonly Ceilings[];
  readonly memory: readonly MemorySample[];
  /** After a full GC, just before the first land(). */
  readonly memoryBefore: MemorySample;
  /** heapUsed after a full GC, just after the last land(): what the batches left behind. */
  readonly liveHeapAfter: number;
  readonly rollup: CeilingResult;
  readonly databaseBytes: number;
  /** The re-lands with a share of the values changed, and what revisions cost. */
  readonly revisions: RevisionReport;
}

type Part = Dataset | 'all';
const PARTS = ['weather', 'pollen', 'all'] as const;
const LABEL = { weather: 'weather', pollen: 'pollen (types + species)', all: 'all' } as const;

const sumTotals = (p: Record<Dataset, PhaseTotals>): PhaseTotals => ({
  rows: p.weather.rows + p.pollen.rows,
  written: p.weather.written + p.pollen.written,
  landSeconds: p.weather.landSeconds + p.pollen.landSeconds,
  prepareSeconds: p.weather.prepareSeconds + p.pollen.prepareSeconds,
  stageSeconds: p.weather.stageSeconds + p.pollen.stageSeconds,
  batches: p.weather.batches + p.pollen.batches,
  changed: p.weather.changed + p.pollen.changed,
});

function byPart(c: Ceiling): Record<Part, CeilingResult> {
  return {
    weather: c.weather_hourly,
    pollen: sumCeilings(c.pollen_hourly, c.pollen_species_hourly),
    all: sumCeilings(c.weather_hourly, c.pollen_hourly, c.pollen_species_hourly),
  };
}

/** Prints the figures; targets are judged on all rows and on weather fresh, each part shown. */
export function printUpsertReport(r: UpsertReport): void {
  const insertSelect = byPart(fastest(r.ceilingRuns.map((c) => c.insertSelect)));
  const copy = byPart(fastest(r.ceilingRuns.map((c) => c.copy)));
  const fresh = { ...r.fresh, all: sumTotals(r.fresh) };
  const reland = { ...r.reland, all: sumTotals(r.reland) };
  const misses: string[] = [];
  const notes: string[] = [];
  const judge = (ok: boolean, judged: boolean, what: string): string => {
    if (!ok) (judged ? misses : notes).push(what);
    return judged ? verdict(ok) : ok ? 'ok' : 'below';
  };

  const rows: string[][] = [];
  for (const [name, ceiling] of [
    ['INSERT … SELECT', insertSelect],
    ['COPY FROM STDIN', copy],
  ] as const) {
    for (const part of PARTS) {
      const c = ceiling[part];
      rows.push([
        `ceiling ${name} ${part}`,
        fmtInt(c.rows),
        fmtSec(c.seconds),
        fmtInt(rate(c.rows, c.seconds)),
        '',
        '',
        '',
      ]);
    }
  }
  for (const part of PARTS) {
    const p = fresh[part];
    const own = rate(p.rows, p.landSeconds);
    const share = own / rate(insertSelect[part].rows, insertSelect[part].seconds);
    const copyShare = own / rate(copy[part].rows, copy[part].seconds);
    const target =
      part === 'weather'
        ? TARGET_WEATHER_SHARE
        : part === 'all'
          ? TARGET_SHARE_OF_CEILING
          : undefined;
    rows.push([
      `fresh ${LABEL[part]}`,
      fmtInt(p.rows),
      fmtSec(p.landSeconds),
      fmtInt(own),
      `${fmtPct(share)} of INSERT…SELECT, ${fmtPct(copyShare)} of COPY`,
      target === undefined ? '' : `>= ${fmtPct(target)}`,
      judge(
        share >= (target ?? TARGET_SHARE_OF_CEILING),
        target !== undefined,
        `fresh ${LABEL[part]} at ${fmtPct(share)} of the INSERT … SELECT ceiling`,
      ),
    ]);
  }
  for (const part of PARTS) {
    const p = reland[part];
    const f = fresh[part];
    const speedup = rate(p.rows, p.landSeconds) / rate(f.rows, f.landSeconds);
    const judged = part !== 'pollen';
    rows.push([
      `re-land ${LABEL[part]}`,
      fmtInt(p.rows),
      fmtSec(p.landSeconds),
      fmtInt(rate(p.rows, p.landSeconds)),
      `${speedup.toFixed(2)}x fresh`,
      judged ? `>= ${TARGET_RELAND_SPEEDUP}x` : '',
      judge(
        speedup >= TARGET_RELAND_SPEEDUP,
        judged,
        `re-landing ${LABEL[part]} ${speedup.toFixed(2)}x as fast as fresh`,
      ),
    ]);
  }
  if (insertSelect.all.rows !== fresh.all.rows) {
    notes.push(
      `the ceiling wrote ${fmtInt(insertSelect.all.rows)} rows, the landing ${fmtInt(fresh.all.rows)}`,
    );
  }

  const o = r.options;
  console.log('');
  console.log(
    `envdata bench:upsert — ${o.locations} locations × ${o.days} days from ${o.from.toISOString().slice(0, 10)}, ` +
      `${CHUNK_HOURS} h chunks, batch ${o.batch} chunks per land(), raw archive ${o.archiveRaw ? 'on' : 'off'}`,
  );
  console.log(
    `land() calls: ${fresh.all.batches} fresh + ${reland.all.batches} re-land; ` +
      `rows written: ${fmtInt(fresh.all.written)} fresh, ${fmtInt(reland.all.written)} re-land`,
  );
  const runRates = r.ceilingRuns.map((run) => {
    const all = byPart(run.insertSelect).all;
    return fmtInt(rate(all.rows, all.seconds));
  });
  console.log(
    `ceilings: the landed keys written again into identical tables by a server-side INSERT … SELECT ` +
      `and by a binary COPY FROM STDIN, in ${r.ceilingRuns.length} runs (INSERT … SELECT ${runRates.join(', ')} rows/s); ` +
      `the faster run per table is used`,
  );
  console.log('');
  console.log(
    table(['phase', 'rows', 'seconds', 'rows/s', 'vs baseline', 'target', 'result'], rows),
  );

  const prepare = fresh.all.prepareSeconds + reland.all.prepareSeconds;
  const prepareRows = fresh.all.rows + reland.all.rows;
  console.log('');
  console.log(
    `body generation (simulator) + JSON parsing, not in the landing times: ${fmtSec(prepare)} s ` +
      `for ${fmtInt(prepareRows)} rows (${fmtInt(rate(prepareRows, prepare))} rows/s)`,
  );
  console.log(
    `staging (FactWriter.stage: the ledger record, COPY tuples and digests of the rows, the body ` +
      `digested and gzip-compressed for the archive, as the batcher does while the batch before ` +
      `commits), not in the landing times: fresh ` +
      `${fmtSec(fresh.weather.stageSeconds)} s weather, ${fmtSec(fresh.pollen.stageSeconds)} s pollen; ` +
      `re-land ${fmtSec(reland.all.stageSeconds)} s`,
  );
  printRevisionReport(r.revisions, r.fresh, misses);
  console.log(
    `daily rollup refresh after the run: ${fmtInt(r.rollup.rows)} rollup rows in ${fmtSec(r.rollup.seconds)} s; ` +
      `database size ${fmtMb(r.databaseBytes)}`,
  );
  printMemory(r, misses);
  console.log('');
  for (const note of notes) console.log(`note: ${note} (not a judged target)`);
  printMisses(misses);
}

/**
 * Peaks after 25/50/75/100 % of all land() calls (fresh, then re-land). They follow V8's heap
 * sizing (it lets garbage pile up longer as the allocation rate grows), so the verdict is on what
 * survives a full GC after the last batch: memory that grew with the batch count would.
 */
function printMemory(r: UpsertReport, misses: string[]): void {
  const n = r.memory.length;
  const quartiles = [0.25, 0.5, 0.75, 1].map((q) => {
    const upTo = r.memory.slice(0, Math.max(1, Math.ceil(n * q)));
    return {
      q,
      batches: upTo.length,
      rss: Math.max(...upTo.map((m) => m.rss)),
      heapUsed: Math.max(...upTo.map((m) => m.heapUsed)),
    };
  });
  const growth = quartiles[3]!.rss / quartiles[1]!.rss - 1;
  const retained = r.liveHeapAfter - r.memoryBefore.heapUsed;
  const flat = retained <= FLAT_LIVE_HEAP_BYTES;
  if (!flat) misses.push(`the batches left ${fmtMb(retained)} on the heap: memory grows with them`);
  console.log('');
  console.log(
    `memory of the loading process, sampled after each land() (before landing: rss ${fmtMb(r.memoryBefore.rss)}, ` +
      `heapUsed ${fmtMb(r.memoryBefore.heapUsed)})`,
  );
  console.log(
    table(
      ['after land() calls', 'batches', 'peak rss', 'peak heapUsed'],
      quartiles.map((q) => [`${q.q * 100} %`, String(q.batches), fmtMb(q.rss), fmtMb(q.heapUsed)]),
    ),
  );
  console.log(
    `peak rss 50 % → 100 % of batches: ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} % ` +
      `(V8 heap sizing; not a retained-memory measure)`,
  );
  console.log(
    `live heap after a full GC: ${fmtMb(r.memoryBefore.heapUsed)} before the first land(), ` +
      `${fmtMb(r.liveHeapAfter)} after the last of ${n}: ${retained >= 0 ? '+' : ''}${fmtMb(retained)} ` +
      `(target flat: <= +${fmtMb(FLAT_LIVE_HEAP_BYTES)})  ${verdict(flat)}`,
  );
}
