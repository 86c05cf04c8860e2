import { expect } from 'vitest';
import type { SimulatorStats } from '../../src/simulator/stats/simulator-stats.js';

/**
 * What a run throttled by the service must show once done: the 429s happened, each of the
 * `chunks` chunks got exactly one 200, nothing else was called, the retries stayed bounded (no
 * hot loop), and no chunk used an attempt on a 429.
 */
export function expectThrottledRunRodeOut(
  stats: SimulatorStats,
  chunks: readonly { readonly status: string; readonly attempts: number }[],
  expectedChunks: number,
): void {
  const refused = stats.byStatus['429'] ?? 0;
  expect(refused).toBeGreaterThan(0);
  expect(stats.byStatus['200']).toBe(expectedChunks);
  expect(stats.total).toBe(expectedChunks + refused);
  expect(stats.total).toBeLessThan(5 * expectedChunks);
  expect(chunks.map((c) => [c.status, c.attempts])).toEqual(chunks.map(() => ['done', 1]));
}
