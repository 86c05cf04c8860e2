import { describe, expect, it } from 'vitest';
import { tileWindows } from '../../src/windows/tile-windows.js';

const iso = (w: { from: Date; to: Date }) => [w.from.toISOString(), w.to.toISOString()];

describe('tileWindows', () => {
  it('tiles a range on the fixed grid, clipped at both ends, meeting exactly', () => {
    const windows = tileWindows(
      new Date('2024-01-01T05:00:00Z'),
      new Date('2024-01-06T00:00:00Z'),
      48,
    );
    expect(windows.map(iso)).toEqual([
      ['2024-01-01T05:00:00.000Z', '2024-01-02T00:00:00.000Z'],
      ['2024-01-02T00:00:00.000Z', '2024-01-04T00:00:00.000Z'],
      ['2024-01-04T00:00:00.000Z', '2024-01-06T00:00:00.000Z'],
    ]);
    for (let i = 1; i < windows.length; i++) expect(windows[i]!.from).toEqual(windows[i - 1]!.to);
  });

  it('gives the same interior windows whatever the range they were planned from', () => {
    const a = tileWindows(new Date('2024-01-01T00:00:00Z'), new Date('2024-02-01T00:00:00Z'), 48);
    const b = tileWindows(new Date('2024-01-10T07:00:00Z'), new Date('2024-01-20T00:00:00Z'), 48);
    const interior = b.slice(1, -1).map(iso);
    expect(a.map(iso)).toEqual(expect.arrayContaining(interior));
  });

  it('rounds to whole hours and refuses a window under one hour', () => {
    const [w] = tileWindows(new Date('2024-01-01T00:30:00Z'), new Date('2024-01-01T01:10:00Z'), 24);
    expect(iso(w!)).toEqual(['2024-01-01T00:00:00.000Z', '2024-01-01T02:00:00.000Z']);
    expect(() => tileWindows(new Date(0), new Date(1), 0)).toThrow(RangeError);
  });
});

describe('tileWindows with a maximum', () => {
  it('stops after max windows, the next one starting where the last ended', () => {
    const from = new Date('2024-01-01T00:00:00Z');
    const to = new Date('2024-02-01T00:00:00Z');
    const first = tileWindows(from, to, 24, 3);
    expect(first).toHaveLength(3);
    const rest = tileWindows(first.at(-1)!.to, to, 24);
    expect([...first, ...rest]).toEqual(tileWindows(from, to, 24));
  });
});
