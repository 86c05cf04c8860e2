import { describe, expect, it } from 'vitest';
import { ServedHours } from '../../src/simulator/data/served-hours.js';

function hoursOf(served: ServedHours, series: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let h = from; h <= to; h++) if (served.has(series, h)) out.push(h);
  return out;
}

describe('ServedHours', () => {
  it('remembers hours per series, merging windows in any order and with gaps', () => {
    const served = new ServedHours();
    served.add('weather:1,2', [10, 11, 12]);
    served.add('weather:1,2', [20, 21]);
    served.add('weather:1,2', [15, 13, 14]);
    served.add('weather:1,2', [30, 32]);
    expect(hoursOf(served, 'weather:1,2', 0, 40)).toEqual([10, 11, 12, 13, 14, 15, 20, 21, 30, 32]);
    served.add('weather:1,2', [16, 17, 18, 19, 31]);
    expect(hoursOf(served, 'weather:1,2', 0, 40)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 30, 31, 32,
    ]);
    expect(hoursOf(served, 'pollen:1,2', 0, 40)).toEqual([]);
    served.clear();
    expect(served.has('weather:1,2', 10)).toBe(false);
  });

  it('stays bounded: forgets every series past maxSeries, the earliest spans past maxSpans', () => {
    const served = new ServedHours(2, 2);
    served.add('a', [1, 3, 5]);
    expect(hoursOf(served, 'a', 0, 6)).toEqual([3, 5]);
    served.add('b', [1]);
    served.add('c', [1]);
    expect(served.has('a', 3)).toBe(false);
    expect(served.has('b', 1)).toBe(false);
    expect(served.has('c', 1)).toBe(true);
  });
});
