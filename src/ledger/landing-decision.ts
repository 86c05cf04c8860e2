import type { Dataset, Window } from '../types.js';
import type { LandingFacts } from '../warehouse/fact-table.js';
import type { ChunkOutcome } from '../warehouse/schema.js';
import { formatHourRanges, hourRanges, hoursOf } from '../windows/hour-ranges.js';
import type { LandingRecord, LandingState } from './record-landings.js';

interface LandingBase {
  readonly chunkId: number;
  /** The run the chunk belongs to (`null` for a rebuild from the archive). */
  readonly runId: number | null;
  readonly locationId: number;
  readonly window: Window;
  /** `no_data` / `not_covered` land zero rows and still mark the chunk done. */
  readonly outcome: ChunkOutcome;
  /**
   * `false` for a trimmed (206, PARTIAL) payload: its rows land, but the chunk is not marked
   * done and will be fetched again.
   */
  readonly complete: boolean;
  /**
   * The hours the answer should hold: the window clipped to the dataset's history and to the
   * last complete hour when it was fetched. Hours of it that neither landed nor were
   * quarantined are missing.
   */
  readonly expected: Window | undefined;
  /**
   * The re-fetch policy still allows another call for this chunk: missing or quarantined hours
   * then make it wait again instead of being recorded as holes.
   */
  readonly refetchAllowed: boolean;
  /** A re-landing from the archive: adds what landed, changes no chunk and no hole. */
  readonly rebuild?: boolean;
  /** API calls made for this landing (0 for a rebuild from the archive). */
  readonly calls: number;
  readonly attempts: number;
  readonly startedAt: Date;
  readonly httpStatus: number;
}

/**
 * What one chunk brings to the warehouse: rows, already normalized by the job (the warehouse
 * knows no payload and no dataset's rules), and the body they came from, for the archive.
 */
export interface ChunkLanding extends LandingBase {
  readonly dataset: Dataset;
  /** The answer's fact rows by table, its quarantined records and counts (`NO_FACTS`: none). */
  readonly facts: LandingFacts;
  /** The body exactly as received; `undefined` when the answer had none to keep. */
  readonly rawBody: string | undefined;
}

export interface LandingResult {
  readonly chunkId: number;
  /** What the ledger made of it (`done`, `refetch`, `partial`, `rebuild`). */
  readonly state: LandingState;
  /** Fact rows the answer normalized to. */
  readonly rows: number;
  readonly quarantined: number;
  readonly outsideWindow: number;
  readonly duplicateHours: number;
  readonly conflictHours: number;
  /** Hours expected but not sent (before the re-fetch policy decides). */
  readonly missingHours: number;
  /** Hours whose records were quarantined. */
  readonly quarantinedHours: number;
}

/** What the ledger records of a landing, and what it tells the job. */
export interface LandingDecision {
  readonly record: LandingRecord;
  readonly result: LandingResult;
}

/**
 * What the ledger records of one landing: hours landed, quarantined and missing, and the state
 * the chunk moves to. Missing hours are the expected ones that neither landed nor were
 * quarantined; while the re-fetch policy allows it, missing or quarantined hours make the chunk
 * wait for another call rather than become holes.
 */
export function decideLanding(landing: ChunkLanding): LandingDecision {
  const { facts } = landing;
  let rows = 0;
  const rowsByHour = new Map<number, number>();
  for (const table of facts.tables) {
    rows += table.rows.length;
    for (const r of table.rows) {
      const hour = r.observedAt.getTime();
      rowsByHour.set(hour, (rowsByHour.get(hour) ?? 0) + 1);
    }
  }
  const landedHours = new Set(rowsByHour.keys());
  const expected = landing.outcome === 'rows' && landing.expected ? hoursOf(landing.expected) : [];
  const missing = expected.filter((h) => !landedHours.has(h) && !facts.quarantinedHours.has(h));
  const quarantinedHours = [...facts.quarantinedHours].filter((h) => !landedHours.has(h));
  const incomplete = missing.length + quarantinedHours.length > 0;
  const state: LandingState = landing.rebuild
    ? 'rebuild'
    : !landing.complete
      ? 'partial'
      : incomplete && landing.refetchAllowed
        ? 'refetch'
        : 'done';
  const done = state === 'done';
  const clean = landing.expected && landing.outcome !== 'rows' ? [landing.expected] : [];
  const missingRanges = hourRanges(missing);
  const record: LandingRecord = {
    chunkId: landing.chunkId,
    runId: landing.runId,
    locationId: landing.locationId,
    dataset: landing.dataset,
    window: landing.window,
    outcome: landing.outcome,
    state,
    calls: landing.calls,
    attempts: landing.attempts,
    startedAt: landing.startedAt,
    rows,
    rowsByHour,
    recordsQuarantined: facts.quarantined.length,
    landed: hourRanges(landedHours),
    holes: {
      missing_upstream: done ? missingRanges : [],
      quarantined: done ? hourRanges(quarantinedHours) : [],
      not_covered: done && landing.outcome === 'not_covered' ? clean : [],
    },
    noData: done && landing.outcome === 'no_data' ? clean : [],
    ...(state === 'refetch' && {
      error: {
        code: 'MISSING_HOURS',
        message:
          `the answer lacked ${missing.length} hour(s)` +
          (missingRanges.length ? ` (${formatHourRanges(missingRanges)})` : '') +
          (quarantinedHours.length
            ? ` and ${quarantinedHours.length} hour(s) were quarantined`
            : '') +
          '; the chunk is fetched again',
      },
    }),
    ...(state === 'partial' && {
      error: {
        code: 'PARTIAL',
        message: 'the service trimmed the payload (206); rows kept, chunk will be fetched again',
      },
    }),
    quarantine: facts.quarantined.map((q) => ({
      source: `${landing.dataset}_history`,
      recordIndex: q.recordIndex,
      raw: q.raw,
      reason: q.reason,
      hour: q.hour,
    })),
  };
  const result: LandingResult = {
    chunkId: landing.chunkId,
    state,
    rows,
    quarantined: facts.quarantined.length,
    outsideWindow: facts.outsideWindow,
    duplicateHours: facts.duplicateHours,
    conflictHours: facts.conflictHours,
    missingHours: missing.length,
    quarantinedHours: quarantinedHours.length,
  };
  return { record, result };
}
