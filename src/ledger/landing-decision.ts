import type { Dataset, Window } from '../types.js';
import type { LandingFacts } from '../warehouse/fact-table.js';
import type { ChunkOutcome } from '../warehouse/schema.js';
import { jitteredBackoffMs } from '../lifecycle/jittered-backoff.js';
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
   * done: it is fetched again as an attempt, or fails at its last (`retries.maxAttempts`).
   */
  readonly complete: boolean;
  /**
   * The hours the answer should hold: the window clipped to the dataset's history and to the
   * last complete hour when it was fetched. Hours of it that neither landed nor were
   * quarantined are missing.
   */
  readonly expected: Window | undefined;
  /** The chunk's retry policy, from which the ledger decides whether it is asked again. */
  readonly retries: ChunkRetries;
  /**
   * An answer of a shape held under the drift policy (`quarantine`, `freeze`): never fetched
   * again (the same shape would come back, paid for).
   */
  readonly held?: boolean;
  /** A re-landing from the archive: adds what landed, changes no chunk and no hole. */
  readonly rebuild?: boolean;
  /** API calls made for this landing (0 for a rebuild from the archive). */
  readonly calls: number;
  readonly attempts: number;
  readonly startedAt: Date;
  readonly httpStatus: number;
}

/** The retry policy a landing meets: what `decideLanding` decides a re-fetch and a 206 from. */
export interface ChunkRetries {
  /** Re-fetches already made for hours missing from earlier answers. */
  readonly refetches: number;
  /** Re-fetches of a chunk whose answer lacked hours (ENVDATA_REFETCH_ATTEMPTS). */
  readonly refetchAttempts: number;
  /** First delay before such a re-fetch, doubled each time (ENVDATA_REFETCH_DELAY_MS). */
  readonly refetchDelayMs: number;
  /** Attempts of a chunk (ENVDATA_MAX_ATTEMPTS): a 206 at the last fails it. */
  readonly maxAttempts: number;
}

/** What the ledger records of a trimmed (206) answer: the one wording. */
export const PARTIAL_MESSAGE =
  'the service trimmed the payload (206); rows kept, the chunk will be fetched again';

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
  /** The endpoint path that answered (no query), kept with the answer. */
  readonly endpoint?: string | undefined;
  /** A rebuild: the archived answer it lands again (its body is in the archive already). */
  readonly archived?: ArchivedAnswer | undefined;
}

/** An answer of the archive, as a rebuild lands it again. */
export interface ArchivedAnswer {
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  readonly bodyBytes: number;
  readonly endpoint: string | undefined;
}

export interface LandingResult {
  readonly chunkId: number;
  /** What the ledger made of it (`done`, `refetch`, `partial`, `failed`, `rebuild`). */
  readonly state: LandingState;
  /** For `refetch`: how long the job waits before the chunk's next call (0 otherwise). */
  readonly refetchDelayMs: number;
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
 * quarantined; while the re-fetch policy allows it (`retries`, never for a held shape), missing
 * or quarantined hours make the chunk wait for another call, after a growing delay with jitter
 * (`random`), rather than become holes. A trimmed (206) answer keeps its rows and is retried
 * as an attempt, or fails at the last one.
 */
export function decideLanding(
  landing: ChunkLanding,
  random: () => number = Math.random,
): LandingDecision {
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
  const { retries } = landing;
  const refetchAllowed = !landing.held && retries.refetches < retries.refetchAttempts;
  const state: LandingState = landing.rebuild
    ? 'rebuild'
    : !landing.complete
      ? landing.attempts < retries.maxAttempts
        ? 'partial'
        : 'failed'
      : incomplete && refetchAllowed
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
    ...((state === 'partial' || state === 'failed') && {
      error: { code: 'PARTIAL', message: PARTIAL_MESSAGE },
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
    refetchDelayMs:
      state === 'refetch'
        ? jitteredBackoffMs(retries.refetchDelayMs, retries.refetches, undefined, random)
        : 0,
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
