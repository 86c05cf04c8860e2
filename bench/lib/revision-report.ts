import type { Dataset } from '../../src/types.js';
import type { PhaseTotals } from './landing-run.js';
import { fmtInt, fmtSec, rate, table } from './report.js';
import type { RevisionCounts } from './revision-counts.js';
import type { TableSize } from './warehouse-sizes.js';

/** One re-land after the fresh landing: identical (`0 %`) or with a share of the values changed. */
export interface RelandPhase {
  readonly label: string;
  readonly totals: Record<Dataset, PhaseTotals>;
  /** Rows in the revision tables before and after the phase. */
  readonly revisionsBefore: RevisionCounts;
  readonly revisionsAfter: RevisionCounts;
}

/** What `bench:upsert` measures of keeping revisions (issue 40). */
export interface RevisionReport {
  /** The identical re-land first, then the changed ones. */
  readonly phases: readonly RelandPhase[];
  /**
   * Sizes of the tables `FACT_SIZE_TABLES` names after the identical re-land (before updates
   * leave dead rows in them), and of those `REVISION_SIZE_TABLES` names after the last phase.
   */
  readonly sizes: readonly TableSize[];
}

/** The fact tables whose bytes per row the report states beside their revisions'. */
export const FACT_SIZE_TABLES = ['weather_hourly', 'pollen_hourly'] as const;
/** The revision and answer tables whose bytes per row the report states. */
export const REVISION_SIZE_TABLES = [
  'weather_hourly_revision',
  'pollen_hourly_revision',
  'answer',
  'answer_body',
] as const;

type Part = Dataset | 'all';
const PARTS = ['weather', 'pollen', 'all'] as const;

/** Revisions a phase wrote, per part: pollen is its type and species tables together. */
function revisionsWritten(p: RelandPhase): Record<Part, number> {
  const weather = p.revisionsAfter.weather - p.revisionsBefore.weather;
  const pollen =
    p.revisionsAfter.pollen -
    p.revisionsBefore.pollen +
    (p.revisionsAfter.species - p.revisionsBefore.species);
  return { weather, pollen, all: weather + pollen };
}

function part(totals: Record<Dataset, PhaseTotals>, which: Part) {
  if (which !== 'all') return totals[which];
  const { weather: w, pollen: p } = totals;
  return {
    rows: w.rows + p.rows,
    landSeconds: w.landSeconds + p.landSeconds,
    changed: w.changed + p.changed,
  };
}

/**
 * Prints each re-land's rows/s beside the identical re-land's and the fresh landing's, the
 * revisions it wrote against the rows it changed (a difference goes to `misses` as a MISMATCH),
 * and the bytes a revision, a fact row and an answer take.
 */
export function printRevisionReport(
  r: RevisionReport,
  fresh: Record<Dataset, PhaseTotals>,
  misses: string[],
): void {
  const identical = r.phases[0]!;
  const rows: string[][] = [];
  for (const phase of r.phases) {
    const written = revisionsWritten(phase);
    for (const which of PARTS) {
      const p = part(phase.totals, which);
      const own = rate(p.rows, p.landSeconds);
      const same = part(identical.totals, which);
      const f = part(fresh, which);
      const ok = written[which] === p.changed;
      if (!ok) {
        misses.push(
          `MISMATCH: re-land ${phase.label} changed ${which}: ${fmtInt(p.changed)} rows changed, ` +
            `${fmtInt(written[which])} revisions written`,
        );
      }
      rows.push([
        `re-land ${phase.label} changed ${which}`,
        fmtInt(p.rows),
        fmtSec(p.landSeconds),
        fmtInt(own),
        `${(own / rate(same.rows, same.landSeconds)).toFixed(2)}x`,
        `${(own / rate(f.rows, f.landSeconds)).toFixed(2)}x`,
        fmtInt(p.changed),
        fmtInt(written[which]),
        ok ? 'ok' : '** MISMATCH **',
      ]);
    }
  }
  console.log('');
  console.log(
    'the cost of keeping revisions: each batch re-landed with a share of its rows changed ' +
      '(weather temperature, every pollen type and species count of the hour; the changed ' +
      'share includes the rows changed before), the revisions counted in envdata.*_revision ' +
      'after each phase',
  );
  console.log(
    table(
      [
        'phase',
        'rows',
        'seconds',
        'rows/s',
        'vs identical re-land',
        'vs fresh',
        'rows changed',
        'revisions written',
        'check',
      ],
      rows,
    ),
  );
  const changedPhases = r.phases.slice(1);
  const prepare = changedPhases.reduce(
    (sum, p) => sum + p.totals.weather.prepareSeconds + p.totals.pollen.prepareSeconds,
    0,
  );
  console.log(
    `body generation, the change and JSON parsing of the changed re-lands, not in the landing ` +
      `times: ${fmtSec(prepare)} s`,
  );
  printSizes(r.sizes);
}

function printSizes(sizes: readonly TableSize[]): void {
  const of = (name: string) => sizes.find((s) => s.table === name)!;
  const perRow = (s: TableSize) =>
    s.rows > 0 ? fmtInt((s.heapBytes + s.indexBytes) / s.rows) : '-';
  const line = (facts: string) => {
    const fact = of(facts);
    const revision = of(`${facts}_revision`);
    return (
      `${facts}_revision ${perRow(revision)} B per revision (${fmtInt(revision.rows)} rows), ` +
      `${facts} ${perRow(fact)} B per row (${fmtInt(fact.rows)} rows)`
    );
  };
  const answer = of('answer');
  const body = of('answer_body');
  const answerBytes = answer.heapBytes + answer.indexBytes;
  const bodyBytes = body.heapBytes + body.indexBytes;
  console.log(
    'storage (heap, TOAST and indexes, all partitions, over the rows; revisions and answers ' +
      'after the last phase, fact rows after the identical re-land):',
  );
  console.log(`  ${line('weather_hourly')}`);
  console.log(`  ${line('pollen_hourly')}`);
  console.log(
    `  answers: ${fmtInt(answer.rows)} in envdata.answer (${perRow(answer)} B each), ` +
      `${fmtInt(body.rows)} bodies in envdata.answer_body (${perRow(body)} B each); ` +
      `${answer.rows > 0 ? fmtInt((answerBytes + bodyBytes) / answer.rows) : '-'} B per answer together`,
  );
}
