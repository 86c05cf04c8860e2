import type { Dataset, DriftPolicy } from '../types.js';

/** A declared location as the plan compares it with the warehouse. */
export type DeclaredLocation =
  | {
      readonly kind: 'point';
      readonly name: string;
      readonly lat: number;
      readonly lng: number;
      readonly country: string | undefined;
      readonly group: string | undefined;
      /** Where it is declared, for messages: `envdata.yaml:12:5`, `envdata.yaml:14:5 (cities.csv line 3)`. */
      readonly ref: string;
    }
  | {
      readonly kind: 'place';
      readonly place: string;
      readonly name: string | undefined;
      readonly country: string | undefined;
      readonly ingestByPlace: boolean;
      readonly group: string | undefined;
      readonly ref: string;
    };

/** The history wanted of one dataset. */
export interface DeclaredDataset {
  readonly dataset: Dataset;
  /** The first hour wanted, as written (`2016-01-01`, `-30d`). */
  readonly since: string;
  /** The `since` of locations in a group, by group. */
  readonly groups: ReadonlyMap<string, string>;
  /**
   * What the answers of a new shape do (`drift`); `undefined`: ENVDATA_DRIFT_POLICY of each
   * worker. `envdata apply` stores it (`envdata.drift_policy`), where every worker reads it.
   */
  readonly drift?: DriftPolicy | undefined;
}

/** A valid `envdata.yaml`, read. */
export interface DeclaredFile {
  readonly fileName: string;
  /** SHA-256 of the file's text, hex: recorded with the run an apply starts. */
  readonly digest: string;
  readonly locations: readonly DeclaredLocation[];
  readonly datasets: readonly DeclaredDataset[];
}

/** The locations of a `file:` entry: refs are `cities.csv line 3`, groups unset. */
export interface DeclaredLocationFile {
  readonly locations: readonly DeclaredLocation[];
  /** Every bad row, by its line or index, and a file that cannot be read. */
  readonly problems: readonly string[];
  /** It has more rows than it was allowed to add: reading stopped there, nothing kept. */
  readonly tooManyRows?: boolean;
}
