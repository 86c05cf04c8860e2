import { describe, expect, it } from 'vitest';
import {
  decideLanding,
  PARTIAL_MESSAGE,
  type ChunkLanding,
  type ChunkRetries,
} from '../../src/ledger/landing-decision.js';
import { NO_FACTS } from '../../src/warehouse/fact-table.js';
import { landingOfBody } from '../fixtures/landing-of-body.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';

const at = (instant: string) => new Date(`${instant}Z`);
const DAY = { from: at('2020-07-01T00:00:00'), to: at('2020-07-02T00:00:00') };
const RETRIES: ChunkRetries = {
  refetches: 0,
  refetchAttempts: 2,
  refetchDelayMs: 1_000,
  maxAttempts: 3,
};
/** `random` at its middle: a jittered delay is the backoff itself. */
const MIDDLE = () => 0.5;

/** A day of weather at one location that got back the hours `[from, to)` of `day`. */
function landing(sentTo: string, extra: Partial<ChunkLanding> = {}): ChunkLanding {
  const body = weatherHistoryBody(hoursBetween('2020-07-01T00:00:00Z', `${sentTo}Z`));
  return landingOfBody(
    { chunkId: 11, runId: 5, dataset: 'weather', locationId: 3, window: DAY },
    body,
    { expected: DAY, retries: RETRIES, ...extra },
  );
}

describe('decideLanding', () => {
  it('a whole answer: the chunk is done, nothing missing, no error', () => {
    const { record, result } = decideLanding(landing('2020-07-02T00:00:00'), MIDDLE);
    expect(result).toMatchObject({ state: 'done', rows: 24, missingHours: 0, refetchDelayMs: 0 });
    expect(record).toMatchObject({ state: 'done', rows: 24, landed: [DAY] });
    expect(record.error).toBeUndefined();
    expect(record.holes.missing_upstream).toEqual([]);
  });

  it('hours missing while re-fetches are left: refetch, with the delay doubled per re-fetch made', () => {
    const first = decideLanding(landing('2020-07-01T18:00:00'), MIDDLE);
    expect(first.result).toMatchObject({
      state: 'refetch',
      missingHours: 6,
      refetchDelayMs: 1_000,
    });
    expect(first.record.error).toEqual({
      code: 'MISSING_HOURS',
      message:
        'the answer lacked 6 hour(s) (2020-07-01 18:00–2020-07-02 00:00); the chunk is fetched again',
    });
    // No hole while the chunk waits to be asked again.
    expect(first.record.holes.missing_upstream).toEqual([]);
    const second = decideLanding(
      landing('2020-07-01T18:00:00', { retries: { ...RETRIES, refetches: 1 } }),
      MIDDLE,
    );
    expect(second.result).toMatchObject({ state: 'refetch', refetchDelayMs: 2_000 });
    // The jitter spreads it between half and one and a half of that.
    expect(decideLanding(landing('2020-07-01T18:00:00'), () => 0).result.refetchDelayMs).toBe(500);
  });

  it('hours missing once the re-fetches are spent, or from a held shape: done, the hours a hole', () => {
    const spent = landing('2020-07-01T18:00:00', { retries: { ...RETRIES, refetches: 2 } });
    const held = landing('2020-07-01T18:00:00', { held: true });
    for (const l of [spent, held]) {
      const { record, result } = decideLanding(l, MIDDLE);
      expect(result).toMatchObject({ state: 'done', missingHours: 6, refetchDelayMs: 0 });
      expect(record.holes.missing_upstream).toEqual([
        { from: at('2020-07-01T18:00:00'), to: DAY.to },
      ]);
      expect(record.error).toBeUndefined();
    }
  });

  it('a trimmed (206) answer keeps its rows and is retried as an attempt, failed at the last one', () => {
    const trimmed = (attempts: number) =>
      decideLanding(landing('2020-07-01T10:00:00', { complete: false, attempts }), MIDDLE);
    for (const attempts of [1, 2]) {
      const { record, result } = trimmed(attempts);
      expect(result).toMatchObject({ state: 'partial', rows: 10, refetchDelayMs: 0 });
      expect(record.error).toEqual({ code: 'PARTIAL', message: PARTIAL_MESSAGE });
      expect(record.holes.missing_upstream).toEqual([]);
    }
    const last = trimmed(3);
    expect(last.result).toMatchObject({ state: 'failed', rows: 10 });
    expect(last.record).toMatchObject({
      state: 'failed',
      landed: [{ from: DAY.from, to: at('2020-07-01T10:00:00') }],
      error: { code: 'PARTIAL', message: PARTIAL_MESSAGE },
    });
  });

  it('"no data" and "not covered" are done with zero rows, their window a clean answer', () => {
    const noData = decideLanding(
      { ...landing('2020-07-02T00:00:00'), outcome: 'no_data', facts: NO_FACTS },
      MIDDLE,
    );
    expect(noData.record).toMatchObject({ state: 'done', rows: 0, noData: [DAY] });
    const notCovered = decideLanding(
      { ...landing('2020-07-02T00:00:00'), outcome: 'not_covered', facts: NO_FACTS },
      MIDDLE,
    );
    expect(notCovered.record.holes.not_covered).toEqual([DAY]);
  });

  it('a rebuild from the archive changes no chunk, whatever its answer lacks', () => {
    const { result } = decideLanding(landing('2020-07-01T06:00:00', { rebuild: true }), MIDDLE);
    expect(result).toMatchObject({ state: 'rebuild', missingHours: 18, refetchDelayMs: 0 });
  });
});
