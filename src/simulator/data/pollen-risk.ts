import type { PollenType, RiskLevel } from '../../types.js';

/**
 * Upper bounds (grains/m³, inclusive) of `Low`, `Moderate` and `High` per pollen type; above the
 * last is `Very High`. The simulator derives every `Risk` from its `Count` with these, so the two
 * always agree; a species' risk uses its type's bounds.
 */
export const POLLEN_RISK_THRESHOLDS: Readonly<
  Record<PollenType, readonly [number, number, number]>
> = {
  tree: [95, 207, 703],
  grass: [29, 60, 341],
  weed: [20, 77, 266],
};

/** The risk level of a count of one pollen type. */
export function pollenRiskOf(type: PollenType, count: number): RiskLevel {
  const [low, moderate, high] = POLLEN_RISK_THRESHOLDS[type];
  if (count <= low) return 'Low';
  if (count <= moderate) return 'Moderate';
  if (count <= high) return 'High';
  return 'Very High';
}
