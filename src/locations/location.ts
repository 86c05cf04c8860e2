import type { PollenRegion } from '../types.js';
import type { RegisteredBy } from '../warehouse/schema.js';

/** A registered location, as the rest of envdata sees it. */
export interface Location {
  readonly locationId: number;
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode: string | null;
  readonly timezone: string;
  readonly pollenRegion: PollenRegion;
  /** The place text the service resolves to this location; set when registered by place. */
  readonly place: string | null;
  readonly registeredBy: RegisteredBy;
  /** Ingest pollen through the by-place endpoints with `place` instead of the coordinates. */
  readonly ingestByPlace: boolean;
  /**
   * When `envdata locations remove` retired it: its facts stay queryable, but it is left out of
   * new backfills and syncs. `null` while active.
   */
  readonly retiredAt: Date | null;
}

export interface NewLocation {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode?: string | null;
  readonly place?: string | null;
  readonly registeredBy: RegisteredBy;
  /** Default `false`; `true` needs `place`. */
  readonly ingestByPlace?: boolean;
}
