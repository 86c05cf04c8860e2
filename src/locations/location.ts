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

/** A location with the other texts it answers to (`locations list`). */
export interface LocationWithAliases extends Location {
  /** The place text it was registered by, when that reads otherwise than its name. */
  readonly aliases: readonly string[];
  /**
   * `false` for a location registered before names were compared as people read them whose
   * name reads as an older location's (migration 0023 kept both): `--location` reaches it by
   * `id:N` only.
   */
  readonly answersToName: boolean;
}

export interface NewLocation {
  readonly name: string;
  /**
   * Another text the location answers to (`--location`, `locations remove`): the place text it
   * was registered by. Ignored when it reads as the name (`locationNameKey`), or could not be a
   * name (`locationTextProblem`: digits only, an `id:` prefix…).
   */
  readonly alias?: string | null;
  readonly lat: number;
  readonly lng: number;
  readonly countryCode?: string | null;
  readonly place?: string | null;
  readonly registeredBy: RegisteredBy;
  /** Default `false`; `true` needs `place`. */
  readonly ingestByPlace?: boolean;
}
