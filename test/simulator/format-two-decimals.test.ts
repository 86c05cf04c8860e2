import { describe, expect, it } from 'vitest';
import { formatTwoDecimals } from '../../src/simulator/render/format-two-decimals.js';
import { unit3 } from '../../src/simulator/data/deterministic-hash.js';

describe('formatTwoDecimals', () => {
  it('writes exactly what String(Math.round(x * 100) / 100) writes', () => {
    const samples = [
      0,
      -0,
      0.004,
      -0.004,
      0.1,
      0.05,
      -12.5,
      1013,
      1013.25,
      99.999,
      -3.05,
      20.8,
      1e6 + 0.01,
    ];
    for (let i = 0; i < 20_000; i++) samples.push((unit3(7, i, 1) - 0.5) * 4_000 * unit3(7, i, 2));
    for (const x of samples) expect(formatTwoDecimals(x)).toBe(String(Math.round(x * 100) / 100));
  });
});
