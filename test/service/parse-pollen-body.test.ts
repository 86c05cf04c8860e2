import { describe, expect, it } from 'vitest';
import { parsePollenBody } from '../../src/service/parse-pollen-body.js';
import { ServiceError } from '../../src/service/service-error.js';
import { readFixture } from './read-fixture.js';

function parseFixture(name: string) {
  return parsePollenBody(readFixture(name));
}

function thrownBy(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

describe('parsePollenBody', () => {
  it('reads the recorded latest record: counts, risks, species with slashes, Others, timezone', () => {
    const body = readFixture('pollen-latest.json');
    const payload = parsePollenBody(body);

    expect(payload.lat).toBe(41.3874);
    expect(payload.lng).toBe(2.1686);
    expect(payload.rawBody).toBe(body);
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toHaveLength(1);
    const [record] = payload.records;
    expect(record?.at.toISOString()).toBe('2024-11-10T21:00:00.000Z');
    expect(record?.timezone).toBe('Europe/Madrid');
    expect(record?.counts).toEqual({ grass: 0, tree: 8, weed: 25 });
    expect(record?.risks).toEqual({ grass: 'Low', tree: 'Low', weed: 'Moderate' });
    expect(record?.othersCount).toBe(0);
    expect(record?.speciesRisk).toBeUndefined();
    expect(record?.species).toHaveLength(14);
    expect(record?.species).toContainEqual({
      category: 'grass',
      name: 'Grass / Poaceae',
      count: 0,
    });
    expect(record?.species).toContainEqual({
      category: 'tree',
      name: 'Poplar / Cottonwood',
      count: 0,
    });
    expect(record?.species).toContainEqual({ category: 'tree', name: 'Oak', count: 8 });
    expect(record?.species).toContainEqual({ category: 'weed', name: 'Ragweed', count: 18 });
  });

  it('keeps Count and the species as sent, without deriving one from the other', () => {
    const [record] = parseFixture('pollen-latest.json').records;
    const treeSum = (record?.species ?? [])
      .filter((s) => s.category === 'tree')
      .reduce((sum, s) => sum + s.count, 0);
    const weedSum = (record?.species ?? [])
      .filter((s) => s.category === 'weed')
      .reduce((sum, s) => sum + s.count, 0);
    expect(treeSum).toBe(8);
    expect(weedSum).toBe(23);
    expect(record?.counts.weed).toBe(25);
  });

  it('accepts "Success", string coordinates and a record without Species or timezone', () => {
    const payload = parseFixture('pollen-latest-legacy.json');
    expect(payload.lat).toBe(40.7128);
    expect(payload.lng).toBe(-74.006);
    const [record] = payload.records;
    expect(record?.species).toBeUndefined();
    expect(record?.othersCount).toBeUndefined();
    expect(record?.timezone).toBeUndefined();
    expect(record?.risks.tree).toBe('High');
  });

  it('reads North American species names and a non-zero Others bare number', () => {
    const [record] = parseFixture('pollen-latest-north-america.json').records;
    expect(record?.othersCount).toBe(3);
    expect(record?.risks.tree).toBe('Very High');
    expect(record?.species).toContainEqual({
      category: 'tree',
      name: 'Cypress / Juniper / Cedar',
      count: 40,
    });
  });

  it('stamps history records from epoch-second `time`, number or numeric string, over createdAt', () => {
    const payload = parseFixture('pollen-history-epoch.json');
    expect(payload.rejected).toEqual([]);
    expect(payload.records.map((r) => r.at.toISOString())).toEqual([
      '2022-07-01T00:00:00.000Z',
      '2022-07-01T01:00:00.000Z',
      '2022-07-01T02:00:00.000Z',
    ]);
    expect(payload.records.every((r) => r.species === undefined)).toBe(true);
    expect(payload.records[1]?.counts).toEqual({ grass: 11, tree: 2, weed: 7 });
  });

  it('stamps newer history records from an ISO `timestamp`', () => {
    const payload = parseFixture('pollen-history-timestamp.json');
    expect(payload.records.map((r) => r.at.toISOString())).toEqual([
      '2024-11-01T00:00:00.000Z',
      '2024-11-01T01:00:00.000Z',
    ]);
    expect(payload.records[1]?.counts.tree).toBe(9);
  });

  it('falls back to createdAt, and prefers updatedAt over createdAt', () => {
    const payload = parseFixture('pollen-history-created-at.json');
    expect(payload.records.map((r) => r.at.toISOString())).toEqual([
      '2023-03-04T05:00:00.000Z',
      '2023-03-04T06:00:00.000Z',
    ]);
  });

  it('reads the legacy forecast: 48 hourly records', () => {
    const { records } = parseFixture('pollen-forecast-legacy.json');
    expect(records).toHaveLength(48);
    const steps = records.slice(1).map((r, i) => r.at.getTime() - (records[i]?.at.getTime() ?? 0));
    expect(new Set(steps)).toEqual(new Set([3_600_000]));
  });

  it('reads the 120 h forecast: 40 three-hourly records with timezone', () => {
    const { records, rejected } = parseFixture('pollen-forecast-120h.json');
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(40);
    expect(records[0]?.at.toISOString()).toBe('2024-11-11T00:00:00.000Z');
    expect(records[39]?.at.toISOString()).toBe('2024-11-15T21:00:00.000Z');
    expect(records.every((r) => r.timezone === 'Europe/Madrid')).toBe(true);
  });

  it('reads per-species risk spelled SpeciesRisk and spelled Risks', () => {
    const { records, rejected } = parseFixture('pollen-species-risk.json');
    expect(rejected).toEqual([]);
    expect(records[0]?.speciesRisk).toEqual({
      Birch: 'Very High',
      'Poplar / Cottonwood': 'High',
      'Grass / Poaceae': 'Low',
      Nettle: 'Low',
    });
    expect(records[1]?.speciesRisk).toEqual({
      Birch: 'Very High',
      'Poplar / Cottonwood': 'Moderate',
    });
  });

  it.each(['pollen-history-wrapped.json', 'pollen-forecast-wrapped.json'])(
    'accepts records under data.history / data.forecast (%s), coordinates from data',
    (name) => {
      const payload = parseFixture(name);
      expect(payload.records).toHaveLength(1);
      expect(payload.records[0]?.at.toISOString()).toBe('2024-11-01T00:00:00.000Z');
      expect(payload.lat).toBe(41.3874);
      expect(payload.lng).toBe(2.1686);
    },
  );

  it('reads an empty forecast and a "Data not available!" body as zero records', () => {
    expect(parseFixture('pollen-forecast-empty.json').records).toEqual([]);
    const noData = parseFixture('no-data.json');
    expect(noData.records).toEqual([]);
    expect(noData.rejected).toEqual([]);
  });

  it('rejects records that do not fit, one by one, and keeps the valid ones', () => {
    const payload = parseFixture('pollen-rejects.json');
    expect(payload.records.map((r) => r.at.toISOString())).toEqual(['2024-11-01T00:00:00.000Z']);
    const reasons = payload.rejected.map((r) => [r.index, r.reason] as const);
    expect(reasons).toHaveLength(11);
    expect(reasons).toEqual([
      [1, expect.stringMatching(/Risk\.grass_pollen is not a risk level.*Extreme/)],
      [2, expect.stringMatching(/no timestamp/)],
      [3, expect.stringMatching(/Count\.grass_pollen is not a number.*lots/)],
      [4, expect.stringMatching(/Count\.grass_pollen is not a non-negative integer count/)],
      [5, 'the record is not an object'],
      [6, expect.stringMatching(/time is epoch milliseconds, not seconds/)],
      [7, expect.stringMatching(/Risk\.grass_pollen is not a risk level.*"low"/)],
      [8, expect.stringMatching(/Species\.Tree\.Oak is not a non-negative integer count/)],
      [9, expect.stringMatching(/Species\.Others is not a number/)],
      [10, expect.stringMatching(/timestamp is not a readable instant/)],
      [11, expect.stringMatching(/SpeciesRisk\.Oak is not a risk level/)],
    ]);
    const raw = JSON.parse(readFixture('pollen-rejects.json')) as { data: unknown[] };
    expect(payload.rejected[0]?.raw).toEqual(raw.data[1]);
    // A readable stamp places the record in its hour (milliseconds too); none leaves it unplaced.
    const at = payload.rejected.map((r) => r.at?.toISOString());
    expect(at).toEqual([
      ...Array(1).fill('2024-11-01T00:00:00.000Z'),
      undefined,
      ...Array(2).fill('2024-11-01T00:00:00.000Z'),
      undefined,
      ...Array(4).fill('2024-11-01T00:00:00.000Z'),
      undefined,
      '2024-11-01T01:00:00.000Z',
    ]);
  });

  it('rejects a species name Postgres cannot store: a NUL, or over 1,024 bytes', () => {
    const record = (name: string) => ({
      time: 1730419200,
      Species: { Tree: { [name]: 1 } },
    });
    const payload = parsePollenBody(
      JSON.stringify({
        message: 'success',
        data: [record('Oak\u0000'), record('O'.repeat(1025)), record('O'.repeat(1024))],
      }),
    );
    expect(payload.records).toHaveLength(1);
    expect(payload.rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(
        /^a species name of Species\.Tree contains a NUL character \(U\+0000\)/,
      ),
      expect.stringMatching(
        /^a species name of Species\.Tree is a name of 1025 bytes, over the 1024/,
      ),
    ]);
    // The reason never carries the NUL itself.
    expect(payload.rejected[0]!.reason).not.toContain('\u0000');
  });

  it('treats a missing count, risk or species entry as absent, never zero', () => {
    const payload = parsePollenBody(
      JSON.stringify({
        message: 'success',
        data: [
          {
            time: 1730419200,
            Count: { tree_pollen: 4, grass_pollen: null },
            Risk: { tree_pollen: 'Low' },
            Species: { Tree: { Oak: 4, Birch: null } },
          },
        ],
      }),
    );
    const [record] = payload.records;
    expect(record?.counts).toEqual({ tree: 4 });
    expect(record?.risks).toEqual({ tree: 'Low' });
    expect(record?.species).toEqual([{ category: 'tree', name: 'Oak', count: 4 }]);
    expect(record?.othersCount).toBeUndefined();
  });

  it('reads an ISO stamp without offset as UTC, not local time', () => {
    const payload = parsePollenBody(
      JSON.stringify({ message: 'success', data: [{ createdAt: '2022-07-02 06:00:00' }] }),
    );
    expect(payload.records[0]?.at.toISOString()).toBe('2022-07-02T06:00:00.000Z');
  });

  it.each([
    ['a body that is not JSON', readFixture('not-json.txt'), /not JSON/],
    ['a JSON array', '[]', /body/],
    ['an envelope without data', '{"message":"success"}', /data/],
    ['data that is a string', '{"message":"success","data":"none"}', /data/],
    ['a message that is not a string', '{"message":1,"data":[]}', /message/],
    ['no message nor status', '{"data":[]}', /neither a message nor a status/],
    ['unreadable coordinates', '{"message":"success","lat":"north","data":[]}', /lat/],
    ['data as a plain object', '{"message":"success","data":{"time":1}}', /history or forecast/],
  ])('raises MALFORMED_RESPONSE with the raw body for %s', (_, body, reason) => {
    const error = thrownBy(() => parsePollenBody(body, { endpoint: '/latest/pollen/by-place' }));
    expect(error.code).toBe('MALFORMED_RESPONSE');
    expect(error.endpoint).toBe('/latest/pollen/by-place');
    expect(error.details.reason).toMatch(reason);
    expect(error.details.body).toBe(body);
    expect(error.message).toContain('/latest/pollen/by-place');
  });

  it('truncates the body kept on MALFORMED_RESPONSE', () => {
    const body = `{"message":"success","data":"${'x'.repeat(10_000)}"}`;
    const error = thrownBy(() => parsePollenBody(body));
    expect(error.endpoint).toBeUndefined();
    expect(String(error.details.body).length).toBeLessThan(2_100);
    expect(error.details.bodyLength).toBe(body.length);
  });
});
