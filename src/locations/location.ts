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
  readonly place: string | null;
  readonly registeredBy: RegisteredBy;
}

export interface NewLocation {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode?: string | null;
  readonly place?: string | null;
  readonly registeredBy: RegisteredBy;
}
