/** A fact row: every fact table is keyed by location and UTC hour (its partition key). */
export interface FactRow {
  readonly observedAt: Date;
}

/** A record kept out of the facts, with why; it lands in `envdata.quarantine`. */
export interface QuarantinedRecord {
  readonly recordIndex: number;
  readonly raw: unknown;
  readonly reason: string;
  /** The UTC hour the record was for, when it had a readable one. */
  readonly hour?: Date;
}

export interface NormalizeStats {
  /** Records whose hour fell outside the chunk's window. */
  readonly outsideWindow: number;
  /** Identical repeats of an hour already in the payload, collapsed quietly. */
  readonly duplicateHours: number;
  /** Hours sent more than once with different values: every copy quarantined. */
  readonly conflictHours: number;
  /** Hours (epoch ms) whose records were quarantined and that have no fact row. */
  readonly quarantinedHours: ReadonlySet<number>;
}
