import { describe, expect, it } from 'vitest';
import { decideChunkOutcome, type OutcomeChunk } from '../../src/ledger/chunk-outcome.js';

const at = (instant: string) => new Date(`${instant}Z`);
const H = 3_600_000;
const FROM = at('2020-07-01T00:00:00');

/** A claimed chunk of weather, `hours` long from the first of July 2020. */
function chunk(hours: number): OutcomeChunk {
  return {
    chunkId: 21,
    runId: 4,
    dataset: 'weather',
    location: { locationId: 9 } as OutcomeChunk['location'],
    window: { from: FROM, to: new Date(FROM.getTime() + hours * H) },
  };
}
const DAY = chunk(24);
const none = { kind: 'none' };

describe('decideChunkOutcome', () => {
  it('close: a landed chunk writes nothing more; its run is checked soon', () => {
    expect(decideChunkOutcome({ kind: 'close' }, DAY, 1)).toMatchObject({
      chunkWrite: none,
      runWrite: none,
      close: 'soon',
    });
  });

  it('release: the chunk goes back, no attempt used; a call sent and answered counts', () => {
    for (const callMade of [true, false]) {
      expect(decideChunkOutcome({ kind: 'release', callMade }, DAY, 2)).toMatchObject({
        chunkWrite: { kind: 'release', callMade },
        runWrite: none,
        close: undefined,
      });
    }
  });

  it('wait: the chunk goes back and the run shows why and until when', () => {
    const until = at('2020-07-02T00:00:00');
    const refusedByService = { counted: 80, limit: 100 };
    const step = {
      kind: 'wait',
      callMade: true,
      reason: 'quota (day)',
      until,
      refusedByService,
    } as const;
    expect(decideChunkOutcome(step, DAY, 1)).toMatchObject({
      chunkWrite: { kind: 'release', callMade: true },
      runWrite: { kind: 'wait', reason: 'quota (day)', until, refusedByService },
      close: undefined,
    });
  });

  it('stop: the chunk goes back with its call counted, the run stops; one wording of why', () => {
    const decision = decideChunkOutcome(
      { kind: 'stop', code: 'UNAUTHORIZED', message: 'the API key was refused (401)' },
      DAY,
      1,
    );
    const message = 'the API key was refused (401); the run stops until the key is fixed';
    expect(decision).toMatchObject({
      kind: 'stop',
      chunkWrite: { kind: 'release', callMade: true },
      runWrite: { kind: 'stop', code: 'UNAUTHORIZED', message },
      close: undefined,
      message,
    });
  });

  it('block: the chunk fails, the run blocks its dataset, and is checked for closing now', () => {
    const message = 'the API key is not allowed to use weather (403)';
    expect(decideChunkOutcome({ kind: 'block', code: 'FORBIDDEN', message }, DAY, 2)).toEqual({
      chunk: DAY,
      kind: 'block',
      chunkWrite: { kind: 'error', status: 'failed', attempts: 2, code: 'FORBIDDEN', message },
      runWrite: { kind: 'block', dataset: 'weather', message },
      close: 'now',
      message,
    });
  });

  it('split: halves on whole hours (the second takes an odd hour), or windows of pieceHours', () => {
    const halves = decideChunkOutcome(
      { kind: 'split', code: 'RANGE_TOO_LONG', message: 'too long' },
      chunk(5),
      1,
    );
    expect(halves).toMatchObject({
      kind: 'split',
      runWrite: none,
      close: undefined,
      chunkWrite: {
        kind: 'split',
        attempts: 1,
        code: 'RANGE_TOO_LONG',
        windows: [
          { from: FROM, to: new Date(FROM.getTime() + 2 * H) },
          { from: new Date(FROM.getTime() + 2 * H), to: new Date(FROM.getTime() + 5 * H) },
        ],
      },
    });
    const pieces = decideChunkOutcome(
      { kind: 'split', code: 'RANGE_TOO_LONG', message: 'too long', pieceHours: 8 },
      DAY,
      1,
    );
    expect(pieces.chunkWrite).toMatchObject({ kind: 'split', pieceHours: 8 });
    expect(pieces.chunkWrite.kind === 'split' && pieces.chunkWrite.windows).toHaveLength(3);
  });

  it('split of one hour: the chunk fails instead, saying what helps when the answer is too large', () => {
    const tooLarge = decideChunkOutcome(
      { kind: 'split', code: 'RESPONSE_TOO_LARGE', message: 'the answer is too large' },
      chunk(1),
      3,
    );
    const message =
      'the answer is too large (one hour is the shortest window: only a higher limit helps)';
    expect(tooLarge).toMatchObject({
      kind: 'fail',
      chunkWrite: {
        kind: 'error',
        status: 'failed',
        attempts: 3,
        code: 'RESPONSE_TOO_LARGE',
        message,
      },
      close: 'now',
      message,
    });
    const tooLong = decideChunkOutcome(
      { kind: 'split', code: 'RANGE_TOO_LONG', message: 'too long' },
      chunk(1),
      1,
    );
    expect(tooLong.chunkWrite).toMatchObject({ status: 'failed', message: 'too long' });
  });

  it('retry and fail: the error on record, the chunk queued or failed (then the run checked)', () => {
    const step = { code: 'SERVER_ERROR', message: 'the service failed (503)', landed: false };
    expect(decideChunkOutcome({ kind: 'retry', ...step }, DAY, 1)).toMatchObject({
      chunkWrite: { kind: 'error', status: 'queued', attempts: 1, code: 'SERVER_ERROR' },
      close: undefined,
    });
    expect(decideChunkOutcome({ kind: 'fail', ...step }, DAY, 5)).toMatchObject({
      chunkWrite: { kind: 'error', status: 'failed', attempts: 5, code: 'SERVER_ERROR' },
      close: 'now',
    });
  });

  it('a 206 is written once: its landing recorded it, the step writes nothing more', () => {
    const step = { code: 'PARTIAL', message: 'trimmed', landed: true };
    expect(decideChunkOutcome({ kind: 'retry', ...step }, DAY, 1)).toMatchObject({
      chunkWrite: none,
      runWrite: none,
      close: undefined,
    });
    expect(decideChunkOutcome({ kind: 'fail', ...step }, DAY, 5)).toMatchObject({
      chunkWrite: none,
      runWrite: none,
      close: 'now',
    });
  });
});
