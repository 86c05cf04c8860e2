import type { PollenType, RiskLevel, SpeciesCategory } from '../../types.js';
import type { NormalizeStats, QuarantinedRecord } from '../../warehouse/fact-rows.js';

/** One pollen type at one hour: `Count.<type>_pollen` and `Risk.<type>_pollen` as sent. */
export interface PollenTypeRow {
  readonly observedAt: Date;
  readonly pollenType: PollenType;
  readonly count: number | null;
  readonly riskLevel: RiskLevel | null;
  /**
   * Only on the rows of a latest reading the service sent without a stamp: `observedAt` is the
   * hour it was fetched in (`stampAtFetch`), stored as `stamped_at_fetch`.
   */
  readonly stampedAtFetch?: true;
}

/** One species (or the `Others` count, category `other`) at one hour. */
export interface PollenSpeciesRow {
  readonly observedAt: Date;
  readonly category: SpeciesCategory;
  readonly species: string;
  readonly count: number;
  readonly riskLevel: RiskLevel | null;
  /**
   * Only on the rows of a latest reading the service sent without a stamp: `observedAt` is the
   * hour it was fetched in (`stampAtFetch`), stored as `stamped_at_fetch`.
   */
  readonly stampedAtFetch?: true;
}

/** A pollen payload as fact rows (`normalizePollen`): per type, per species, and quarantined. */
export interface NormalizedPollen extends NormalizeStats {
  readonly typeRows: readonly PollenTypeRow[];
  readonly speciesRows: readonly PollenSpeciesRow[];
  readonly quarantined: readonly QuarantinedRecord[];
}
