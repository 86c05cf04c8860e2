import { describe, expect, it } from 'vitest';
import { parsePartialBody } from '../../src/service/parse-partial-body.js';
import { parsePollenDocument } from '../../src/service/parse-pollen-body.js';
import { readFixture } from './read-fixture.js';

describe('parsePartialBody', () => {
  it('parses a truncated 206 body up to its last complete record', () => {
    const rawBody = readFixture('pollen-history-truncated.txt');
    const payload = parsePartialBody(undefined, { rawBody }, parsePollenDocument);
    expect(payload.rawBody).toBe(rawBody);
    expect(payload.lat).toBe(41.3874);
    expect(payload.records).toHaveLength(1);
    expect(payload.records[0]?.at.toISOString()).toBe('2024-11-01T00:00:00.000Z');
    expect(payload.rejected).toEqual([]);
  });

  it('parses a complete 206 body fully', () => {
    const rawBody = readFixture('pollen-history-timestamp.json');
    const json: unknown = JSON.parse(rawBody);
    expect(parsePartialBody(json, { rawBody }, parsePollenDocument).records).toHaveLength(2);
  });

  it.each([['Payment quota reached'], ['{"mess'], ['{"data":[]}']])(
    'gives zero records, not an error, for a body with no usable envelope (%s)',
    (rawBody) => {
      const payload = parsePartialBody(undefined, { rawBody }, parsePollenDocument);
      expect(payload).toEqual({
        lat: undefined,
        lng: undefined,
        records: [],
        rejected: [],
        rawBody,
      });
    },
  );
});
