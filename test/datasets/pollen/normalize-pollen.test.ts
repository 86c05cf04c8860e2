import { describe, expect, it } from 'vitest';
import { normalizePollen, OTHERS_SPECIES } from '../../../src/datasets/pollen/normalize-pollen.js';
import { parsePollenBody } from '../../../src/service/parse-pollen-body.js';

const H = (iso: string) => new Date(iso);
const epoch = (iso: string) => Date.parse(iso) / 1000;

function record(stamp: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    ...stamp,
    Count: { grass_pollen: 3, tree_pollen: 40, weed_pollen: 7 },
    Risk: { grass_pollen: 'Low', tree_pollen: 'Moderate', weed_pollen: 'Low' },
    Species: {
      Grass: { 'Grass / Poaceae': 2 },
      Others: 4,
      Tree: { Birch: 30, 'Poplar / Cottonwood': 9 },
      Weed: { Nettle: 6 },
    },
    ...extra,
  };
}

const window = { from: H('2024-04-01T00:00:00Z'), to: H('2024-04-03T00:00:00Z') };

describe('normalizePollen', () => {
  it('keeps Count and species exactly as sent, never derived from each other', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [record({ time: epoch('2024-04-01T10:00:00Z'), createdAt: '2024-04-01T10:05:00Z' })],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(out.typeRows).toEqual([
      {
        observedAt: H('2024-04-01T10:00:00Z'),
        pollenType: 'tree',
        count: 40,
        riskLevel: 'Moderate',
      },
      { observedAt: H('2024-04-01T10:00:00Z'), pollenType: 'grass', count: 3, riskLevel: 'Low' },
      { observedAt: H('2024-04-01T10:00:00Z'), pollenType: 'weed', count: 7, riskLevel: 'Low' },
    ]);
    // Tree count 40 while its species sum to 39: both stored as sent.
    const species = Object.fromEntries(
      out.speciesRows.map((r) => [`${r.category}/${r.species}`, r.count]),
    );
    expect(species).toEqual({
      'grass/Grass / Poaceae': 2,
      'tree/Birch': 30,
      'tree/Poplar / Cottonwood': 9,
      'weed/Nettle': 6,
      [`other/${OTHERS_SPECIES}`]: 4,
    });
  });

  it('accepts every timestamp variant and lands them on the same hour', () => {
    const stamps = [
      { time: epoch('2024-04-01T05:00:00Z') },
      { timestamp: '2024-04-01T06:00:00.000Z' },
      { updatedAt: '2024-04-01T07:00:00.000Z' },
      { createdAt: '2024-04-01T08:00:00Z' },
    ];
    const body = JSON.stringify({ message: 'Success', data: stamps.map((s) => record(s)) });
    const out = normalizePollen(parsePollenBody(body), window);
    const hours = [...new Set(out.typeRows.map((r) => r.observedAt.toISOString()))];
    expect(hours).toEqual([
      '2024-04-01T05:00:00.000Z',
      '2024-04-01T06:00:00.000Z',
      '2024-04-01T07:00:00.000Z',
      '2024-04-01T08:00:00.000Z',
    ]);
  });

  it('writes no species row when Species is absent (unknown, not zero)', () => {
    const noSpecies = record({ time: epoch('2024-04-01T01:00:00Z') });
    delete (noSpecies as Record<string, unknown>).Species;
    const out = normalizePollen(
      parsePollenBody(JSON.stringify({ message: 'success', data: [noSpecies] })),
      window,
    );
    expect(out.typeRows).toHaveLength(3);
    expect(out.speciesRows).toEqual([]);
  });

  it('attaches per-species risk when the service sends it', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [record({ time: epoch('2024-04-01T02:00:00Z') }, { SpeciesRisk: { Birch: 'High' } })],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(out.speciesRows.find((r) => r.species === 'Birch')?.riskLevel).toBe('High');
    expect(out.speciesRows.find((r) => r.species === 'Nettle')?.riskLevel).toBeNull();
  });

  it('drops records outside the window and collapses identical repeats of an hour', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [
        record({ time: epoch('2024-03-31T23:00:00Z') }),
        record({ time: epoch('2024-04-01T00:00:00Z') }),
        // The same values, stamped differently: a boundary record sent twice.
        record({ time: epoch('2024-04-01T00:00:00Z'), createdAt: '2024-04-01T00:05:00Z' }),
        record({ time: epoch('2024-04-03T00:00:00Z') }),
      ],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(out.outsideWindow).toBe(2);
    expect(out.duplicateHours).toBe(1);
    expect(out.conflictHours).toBe(0);
    expect(out.quarantined).toEqual([]);
    expect(out.typeRows).toHaveLength(3);
  });

  it('quarantines every copy of an hour sent twice with different values, naming both', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [
        record({ time: epoch('2024-04-01T00:00:00Z') }),
        record(
          { time: epoch('2024-04-01T00:00:00Z') },
          { Count: { grass_pollen: 9, tree_pollen: 9, weed_pollen: 9 } },
        ),
        record({ time: epoch('2024-04-01T01:00:00Z') }),
      ],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(out.conflictHours).toBe(1);
    expect([...out.quarantinedHours]).toEqual([Date.parse('2024-04-01T00:00:00Z')]);
    expect(out.quarantined.map((q) => q.recordIndex)).toEqual([0, 1]);
    expect(out.quarantined[0]!.reason).toMatch(/conflicting duplicates/);
    expect(out.quarantined[0]!.reason).toMatch(/Count\.grass_pollen \d+ vs 9/);
    // Only the clean hour lands; no row for the conflicting one.
    expect(new Set(out.typeRows.map((r) => r.observedAt.toISOString()))).toEqual(
      new Set(['2024-04-01T01:00:00.000Z']),
    );
  });

  it('quarantines a bad record with its reason while the rest land', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [
        record({ time: epoch('2024-04-01T03:00:00Z') }),
        record({ time: epoch('2024-04-01T04:00:00Z') }, { Risk: { tree_pollen: 'Extreme' } }),
        record({ time: epoch('2024-04-01T05:00:00Z') }, { Count: { tree_pollen: -4 } }),
      ],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(new Set(out.typeRows.map((r) => r.observedAt.toISOString()))).toEqual(
      new Set(['2024-04-01T03:00:00.000Z']),
    );
    expect(out.quarantined.map((q) => q.recordIndex).sort()).toEqual([1, 2]);
    for (const q of out.quarantined) expect(q.reason.length).toBeGreaterThan(5);
  });

  it('places a rejected record in its hour when its stamp is readable, and in none otherwise', () => {
    const body = JSON.stringify({
      message: 'success',
      data: [
        record({ time: epoch('2024-04-01T03:00:00Z') }, { Risk: { tree_pollen: 'Extreme' } }),
        record({ time: epoch('2024-04-01T04:00:00Z') * 1000 }),
        {},
        // Outside the window: counted there, like any record, not quarantined here.
        record({ time: epoch('2024-04-03T00:00:00Z') }, { Count: { tree_pollen: 'x' } }),
        record({ time: epoch('2024-04-01T05:00:00Z') }),
      ],
    });
    const out = normalizePollen(parsePollenBody(body), window);
    expect(out.quarantined.map((q) => [q.recordIndex, q.hour?.toISOString()])).toEqual([
      [0, '2024-04-01T03:00:00.000Z'],
      [1, '2024-04-01T04:00:00.000Z'],
      [2, undefined],
    ]);
    expect([...out.quarantinedHours]).toEqual([
      Date.parse('2024-04-01T03:00:00Z'),
      Date.parse('2024-04-01T04:00:00Z'),
    ]);
    expect(out.outsideWindow).toBe(1);
  });
});
