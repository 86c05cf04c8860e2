import type { NewLocation } from '../locations/location.js';

/** A declared location resolved to what would be registered: a point with its name. */
export interface WantedLocation {
  readonly input: NewLocation;
  /** Its group in the file, for a `since` of its own. */
  readonly group: string | undefined;
  /** Where it is declared: `envdata.yaml:12:5`. */
  readonly ref: string;
}
